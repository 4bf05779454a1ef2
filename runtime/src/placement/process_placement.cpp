// The driver's side of a process-isolated actor (process.h): ProcessActor, the proxy an actor
// thread runs, and the ProcessPlacement that gives each isolated Call its factory.
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/system/system_error.hpp>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "actor_placement.h"
#include "gpu_devices.h"
#include "process.h"
#include "process_wire.h"

extern char** environ;

namespace rop::runtime::detail {
namespace {

// The descriptor a worker finds its socket at.
constexpr int kWorkerFd = 3;

// "killed by SIGSEGV", "exited with status 3".
std::string describe(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* name = sigabbrev_np(signal);
        return "killed by " +
               (name ? "SIG" + std::string(name) : "signal " + std::to_string(signal));
    }
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "stopped";
}

class ProcessActor final : public Actor {
  public:
    // `target`: a Call, or a shared pool (wire::kPoolTarget); `memory_mb`: its memory limit.
    ProcessActor(const std::vector<std::string>& argv, std::uint32_t target,
                 std::uint32_t memory_mb, const wire::TargetShapes& shapes)
        : shapes_(shapes), socket_(io_) {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
            throw std::runtime_error(std::string("cannot create the worker's socket: ") +
                                     std::strerror(errno));
        }
        // Moved above the low descriptors, so that dup2 onto kWorkerFd is never a no-op (which
        // would keep close-on-exec).
        const int child_end = ::fcntl(fds[1], F_DUPFD_CLOEXEC, 64);
        ::close(fds[1]);
        std::vector<std::string> args = argv;
        args.emplace_back(kWorkerFlag);
        args.push_back(std::to_string(target) + ":" + std::to_string(kWorkerFd) + ":" +
                       std::to_string(std::uint64_t{memory_mb} << 20));
        std::vector<char*> c_args;
        for (std::string& a : args) c_args.push_back(a.data());
        c_args.push_back(nullptr);
        // Placed on GPUs (gpu_devices.h): the worker sees only its own devices.
        std::vector<std::string> env_storage;
        std::vector<char*> env;
        const std::string visible = visible_devices_of_thread();
        if (!visible.empty()) {
            for (char** e = environ; *e; ++e) {
                if (!std::string_view(*e).starts_with("CUDA_VISIBLE_DEVICES="))
                    env_storage.emplace_back(*e);
            }
            env_storage.push_back("CUDA_VISIBLE_DEVICES=" + visible);
            for (std::string& e : env_storage) env.push_back(e.data());
            env.push_back(nullptr);
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, child_end, kWorkerFd);
        const int spawned = ::posix_spawn(&pid_, args[0].c_str(), &actions, nullptr, c_args.data(),
                                          env.empty() ? environ : env.data());
        posix_spawn_file_actions_destroy(&actions);
        ::close(child_end);
        if (spawned != 0) {
            ::close(fds[0]);
            pid_ = -1;
            throw std::runtime_error("cannot start a worker process ('" + args[0] +
                                     "'): " + std::strerror(spawned));
        }
        socket_.assign(boost::asio::local::stream_protocol(), fds[0]);
        // The handshake: the worker builds its actor, then says Ready (or why it could not).
        std::string frame;
        try {
            frame = wire::receive(socket_);
        } catch (const boost::system::system_error&) {
            throw std::runtime_error("its worker process " + reap() + " while starting");
        }
        wire::Reader in(std::string_view(frame).substr(1));
        if (static_cast<wire::Kind>(frame[0]) == wire::Kind::Setup)
            throw std::runtime_error(in.str());
        if (static_cast<wire::Kind>(frame[0]) != wire::Kind::Ready) {
            throw wire::WireError("process worker: no handshake");
        }
    }

    ~ProcessActor() override {
        boost::system::error_code ignored;
        socket_.close(ignored);  // the worker reads EOF and exits
        std::lock_guard<std::mutex> lock(mutex_);
        if (pid_ > 0) wait_for_worker(std::chrono::milliseconds(500));
    }

    void process(Batch& batch) override {
        const wire::TargetShapes::Shape& shape = shapes_.of(batch);
        const wire::Writer out = wire::encode_batch(batch, shape);
        try {
            wire::send(socket_, out);
            for (;;) {
                const std::string frame = wire::receive(socket_);
                wire::Reader in(std::string_view(frame).substr(1));
                switch (static_cast<wire::Kind>(frame[0])) {
                    case wire::Kind::Emitted: {
                        const std::uint32_t grain = in.u32();
                        batch.emit_child(grain, in.value());
                        break;
                    }
                    case wire::Kind::Done: wire::apply_done(batch, in, shape.outputs); return;
                    default: throw wire::WireError("process worker: unexpected frame");
                }
            }
        } catch (const boost::system::system_error&) {
            throw InfraFailure("worker " + reap());
        }
    }

    // From the driver thread (a timeout, the end of the run): the worker is killed, so that
    // the actor thread waiting for it gets its batch back as an infra failure and exits.
    void cancel() noexcept override {
        std::lock_guard<std::mutex> lock(mutex_);
        cancelled_ = true;
        if (pid_ > 0) ::kill(pid_, SIGKILL);
    }

  private:
    // The worker is gone (or going): waits for it and says how it ended.
    std::string reap() {
        boost::system::error_code ignored;
        socket_.close(ignored);
        std::lock_guard<std::mutex> lock(mutex_);
        if (pid_ <= 0) return "is gone";
        const std::optional<int> status = wait_for_worker(std::chrono::seconds(2));
        if (!status) return "is gone";
        if (cancelled_) return "stopped by the driver (" + describe(*status) + ")";
        return describe(*status);
    }

    // Reaps the worker (mutex_ held, pid_ > 0), killing it if it is still alive after `grace`;
    // its wait status, or nullopt when it was not ours to reap. pid_ is -1 afterwards.
    std::optional<int> wait_for_worker(std::chrono::steady_clock::duration grace) {
        const auto until = std::chrono::steady_clock::now() + grace;
        int status = 0;
        std::optional<int> out;
        for (;;) {
            const pid_t r = ::waitpid(pid_, &status, WNOHANG);
            if (r == pid_) {
                out = status;
                break;
            }
            if (r < 0 && errno != EINTR) break;
            if (std::chrono::steady_clock::now() >= until) {  // closed its socket but lives on
                ::kill(pid_, SIGKILL);
                while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
                }
                out = status;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        pid_ = -1;
        return out;
    }

    const wire::TargetShapes shapes_;
    boost::asio::io_context io_;
    wire::Socket socket_;
    std::mutex mutex_;  // pid_ and cancelled_: cancel() comes from the driver thread
    pid_t pid_ = -1;
    bool cancelled_ = false;
};

}  // namespace

namespace {

class ProcessPlacement final : public ActorPlacement {
  public:
    explicit ProcessPlacement(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    const char* name() const override { return "process"; }
    ActorFactory factory(CallId call, const Plan& plan) const override {
        return make(call, plan.calls[call].options.memory_mb, plan);
    }
    ActorFactory pool_factory(PoolId pool, const Plan& plan) const override {
        return make(wire::kPoolTarget | pool, plan.pools[pool].options.memory_mb, plan);
    }

  private:
    ActorFactory make(std::uint32_t target, std::uint32_t memory_mb, const Plan& plan) const {
        return [argv = argv_, target, memory_mb,
                shapes = wire::TargetShapes(plan, target)]() -> std::unique_ptr<Actor> {
            return std::make_unique<ProcessActor>(argv, target, memory_mb, shapes);
        };
    }

    std::vector<std::string> argv_;
};

}  // namespace

std::unique_ptr<ActorPlacement> make_process_placement(std::vector<std::string> worker_argv) {
    return std::make_unique<ProcessPlacement>(std::move(worker_argv));
}

}  // namespace rop::runtime::detail
