// The calling thread's own clocks: its CPU time, and its time spent waiting for a core. Read by
// execute_job for RunOptions::measure_cpu and by --estimate for the driver's share of a core.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <ctime>

namespace rop::runtime {

// The thread's CPU clock (exact), in ns.
inline std::int64_t thread_cpu_ns() {
    timespec ts{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The thread's wait for a core so far, in ns: the second field of /proc/thread-self/schedstat
// (the run-queue delay, counted whenever the thread gets a core back, so it is current while
// the thread runs); 0 where the kernel keeps none. Reading it costs tens of microseconds.
inline std::int64_t thread_wait_ns() {
    const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[96];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    unsigned long long run = 0, wait = 0;
    if (n <= 0) return 0;
    buf[n] = '\0';
    if (std::sscanf(buf, "%llu %llu", &run, &wait) != 2) return 0;
    return static_cast<std::int64_t>(wait);
}

}  // namespace rop::runtime
