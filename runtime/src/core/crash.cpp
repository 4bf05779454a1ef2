// crash.h: the crash handler. Everything it does after the signal is async-signal-safe except
// backtrace() (preloaded at install, so that it does not allocate): write(2) of text prepared
// when the batch was built (BatchJob::crash_note, crash_roots, crash_call).
#include "crash.h"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "rop/runtime/executor.h"

namespace rop::runtime::detail {
namespace {

thread_local const BatchJob* tl_job = nullptr;
std::atomic<int> g_journal_fd{-1};
std::atomic<int> g_entered{0};
std::atomic<int> g_rank{-1};
std::string g_journal_path, g_journal_header;
char g_program[128] = "pipeline";

void put(int fd, const char* text, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, text, n);
        if (w <= 0) return;
        text += w;
        n -= static_cast<std::size_t>(w);
    }
}
void put(int fd, const char* text) { put(fd, text, std::strlen(text)); }
void put(int fd, const std::string& text) { put(fd, text.data(), text.size()); }

void on_crash(int signal, siginfo_t*, void*) {
    if (g_entered.fetch_add(1) == 0) {
        const char* abbrev = sigabbrev_np(signal);
        put(2, "\n");
        put(2, g_program);
        put(2, ": crashed: SIG");
        put(2, abbrev ? abbrev : "?");
        const BatchJob* job = tl_job;
        if (job) {
            put(2, " in ");
            put(2, job->crash_note);
        } else {
            put(2, " outside any UDF batch");
        }
        put(2, "\nstack trace:\n");
        void* frames[64];
        const int depth = ::backtrace(frames, 64);
        ::backtrace_symbols_fd(frames, depth, 2);
        const int journal = g_journal_fd.load();
        if (job && journal >= 0 && !job->crash_roots.empty()) {
            // One line, one write: {"crashed":[1,7],"call":"m","signal":"SIGSEGV"}
            char line[4096];
            std::size_t n = 0;
            auto add = [&](const char* s, std::size_t len) {
                if (n + len < sizeof line) {
                    std::memcpy(line + n, s, len);
                    n += len;
                }
            };
            auto add_text = [&](const char* s) { add(s, std::strlen(s)); };
            add_text("{\"crashed\":[");
            for (std::size_t i = 0; i < job->crash_roots.size(); ++i) {
                if (i) add_text(",");
                char digits[24];
                std::size_t d = 0;
                std::uint64_t v = job->crash_roots[i];
                do {
                    digits[sizeof digits - 1 - d++] = static_cast<char>('0' + v % 10);
                    v /= 10;
                } while (v != 0);
                add(digits + sizeof digits - d, d);
            }
            add_text("],\"call\":\"");
            add(job->crash_call.data(), job->crash_call.size());
            add_text("\",\"signal\":\"SIG");
            add_text(abbrev ? abbrev : "?");
            add_text("\"");
            if (const int rank = g_rank.load(); rank >= 0) {
                char digits[16];
                std::size_t d = 0;
                auto v = static_cast<unsigned>(rank);
                do {
                    digits[sizeof digits - 1 - d++] = static_cast<char>('0' + v % 10);
                    v /= 10;
                } while (v != 0);
                add_text(",\"rank\":");
                add(digits + sizeof digits - d, d);
            }
            add_text("}\n");
            if (n < sizeof line) put(journal, line, n);
        }
        put(2,
            "The journal counts the roots above: --resume runs each of them alone, and fails "
            "one that brings the process down twice.\n");
    }
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

}  // namespace

void set_running_job(const BatchJob* job) noexcept { tl_job = job; }
const BatchJob* running_job() noexcept { return tl_job; }
void set_crash_journal(int fd) noexcept { g_journal_fd.store(fd); }
void set_crash_journal_identity(const std::string& path, const std::string& header) {
    g_journal_path = path;
    g_journal_header = header;
}
const std::string& crash_journal_path() { return g_journal_path; }
const std::string& crash_journal_header() { return g_journal_header; }
void set_crash_rank(int rank) noexcept { g_rank.store(rank); }

void install_crash_handler(const std::string& program) {
    std::strncpy(g_program, program.c_str(), sizeof g_program - 1);
    void* warm[1];
    ::backtrace(warm, 1);  // loads the unwinder now, not inside the handler
    struct sigaction action{};
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(s, &action, nullptr);
}

}  // namespace rop::runtime::detail
