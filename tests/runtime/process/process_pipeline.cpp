// The pipeline the process-isolation tests run (test_process.cpp): a hand-written
// PipelineDefinition run by pipeline_main, like a generated binary, whose map Call can be
// isolated (ROP_TEST_ISOLATE="m" or "m,sum": `isolation process` is fixed at build time in a
// generated binary) and misbehaves on the pages ROP_TEST_POISON names.
//   docs  (source): a text file, one root per line: "NAME VALUE"
//   split (expand): VALUE % 5 + 2 pages, valued 1000 * VALUE + i, streamed; a page is its value
//                   as text, padded with spaces to ROP_TEST_PAGE_BYTES (a page image's size:
//                   the MPI payload test)
//   m     (map):    3 * page + 1, one batch at a time (batch 8, 2 actors by default); in its
//                   worker process a 512 MiB address-space limit. ROP_TEST_POISON="PAGE:HOW,..."
//                   with HOW one of segv, abort, exit, kill (SIGKILL, as the OOM killer),
//                   alloc (allocates without bound), throw
//                   (an ordinary exception naming the page), hang (sleeps forever), setup (the
//                   actor's constructor throws: the Call cannot be built at all);
//                   ROP_TEST_SLEEP_US: each batch sleeps that long (bench/isolation)
//   sum   (reduce): the root's VALUE * 1e6 + the sum of its pages, also in the worker process
//                   when isolated (ROP_TEST_ISOLATE="m,sum"): ReduceGroups cross too
//   totals (sink):  one line per root, "NAME TOTAL", in a plain file (append, no journal
//                   needed by the tests; --commit-group 1), as roots finish
// ROP_TEST_GPUS="M,SUM": the map's and the reduce's gpus option (the MPI placement tests);
// ROP_TEST_SHOW_DEVICES=FILE: each map actor appends the devices it was given to FILE.
// Two more HOWs for m, thrown from its batch (issue 32): permanent (a rop::PermanentFailure
// naming the page's item) and badalloc (a std::bad_alloc of its own, far below the limit).
// ROP_TEST_POOL=N: m and sum run on one shared pool "model" of N actors (docs/runtime.md "Shared
// pools"), isolated when ROP_TEST_ISOLATE names "model", with ROP_TEST_POOL_GPUS gpus per pool
// actor; ROP_TEST_SHOW_INSTANCES=FILE: each
// instance of the pool's class appends "instance PID" to FILE when it is made.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../pipeline_test_parts.h"
#include "rop/runtime/gpu.h"
#include "rop/runtime/pipeline_main.h"

namespace rt = rop::runtime;

namespace {

// ROP_TEST_POISON, parsed: page value -> how it misbehaves.
std::map<long, std::string> poison() {
    std::map<long, std::string> out;
    const char* text = std::getenv("ROP_TEST_POISON");
    std::string s = text ? text : "";
    std::size_t at = 0;
    while (at < s.size()) {
        std::size_t end = s.find(',', at);
        if (end == std::string::npos) end = s.size();
        const std::string item = s.substr(at, end - at);
        const std::size_t colon = item.find(':');
        if (colon != std::string::npos)
            out[std::stol(item.substr(0, colon))] = item.substr(colon + 1);
        at = end + 1;
    }
    return out;
}

void misbehave(long page, const std::string& how) {
    if (how == "segv") std::raise(SIGSEGV);
    if (how == "abort") std::abort();
    if (how == "exit") std::_Exit(7);
    if (how == "kill") std::raise(SIGKILL);  // what the kernel's OOM killer sends
    if (how == "throw") throw std::runtime_error("page " + std::to_string(page) + " is bad");
    if (how == "hang") {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (how == "alloc") {
        std::vector<std::unique_ptr<char[]>> hog;
        for (;;) {
            hog.push_back(std::make_unique<char[]>(64 << 20));
            for (std::size_t i = 0; i < (64 << 20); i += 4096) hog.back()[i] = 1;
        }
    }
}

// A page: its value as text, padded to ROP_TEST_PAGE_BYTES.
rt::Value make_page(long value) {
    static const std::size_t size =
        std::getenv("ROP_TEST_PAGE_BYTES") ? std::stoul(std::getenv("ROP_TEST_PAGE_BYTES")) : 0;
    std::string text = std::to_string(value);
    if (text.size() < size) text.resize(size, ' ');
    return rt::Value::of<std::string>(std::move(text));
}

long value_of(const rt::Value& page) { return std::stol(page.get<std::string>()); }

class MapActor final : public rt::Actor {
  public:
    MapActor() : poison_(poison()) {
        // ROP_TEST_SHOW_DEVICES=FILE: each actor appends the GPUs it was given (the MPI
        // placement test): its assigned_gpus() and, in a worker process, CUDA_VISIBLE_DEVICES.
        if (const char* file = std::getenv("ROP_TEST_SHOW_DEVICES")) {
            std::string line = "gpus=";
            for (int d : rt::assigned_gpus()) line += std::to_string(d) + ";";
            const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
            line += std::string(" visible=") + (visible ? visible : "") + "\n";
            const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
            if (fd >= 0) {
                [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
                ::close(fd);
            }
        }
        for (const auto& [page, how] : poison_) {
            if (how == "setup")
                throw std::runtime_error("model data not found (page " + std::to_string(page) +
                                         ")");
        }
    }
    void process(rt::Batch& bt) override {
        if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
        for (std::size_t g = 0; g < bt.size(); ++g) {
            const long page = value_of(bt.input(g, 0));
            const auto it = poison_.find(page);
            if (it == poison_.end()) continue;
            if (it->second == "permanent") {
                throw rop::PermanentFailure("page " + std::to_string(page) + " cannot be read", g);
            }
            if (it->second == "badalloc") throw std::bad_alloc();
            misbehave(page, it->second);
        }
        for (std::size_t g = 0; g < bt.size(); ++g) {
            bt.set_output(g, 0, rt::Value::of<long>(3 * value_of(bt.input(g, 0)) + 1));
        }
    }

  private:
    std::map<long, std::string> poison_;
    long sleep_us_ =
        std::getenv("ROP_TEST_SLEEP_US") ? std::atol(std::getenv("ROP_TEST_SLEEP_US")) : 0;
};

// The shared pool's class (ROP_TEST_POOL): one MapActor per instance, and a note per instance.
struct PoolModel {
    PoolModel() {
        if (const char* file = std::getenv("ROP_TEST_SHOW_INSTANCES")) {
            const std::string line = "instance " + std::to_string(::getpid()) + "\n";
            const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
            if (fd >= 0) {
                [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
                ::close(fd);
            }
        }
    }
    MapActor map;
};

// A pooled Call's view: the instance's actor, the instance kept alive.
class ForwardTo final : public rt::Actor {
  public:
    ForwardTo(rt::Actor* actor, rt::PoolInstance keep) : actor_(actor), keep_(std::move(keep)) {}
    void process(rt::Batch& batch) override { actor_->process(batch); }

  private:
    rt::Actor* actor_;
    rt::PoolInstance keep_;
};

using rop::runtime::test::LineSource;

rt::ActorFactory actor(std::function<void(rt::Batch&)> f) {
    return rop::runtime::test::fn_actor(std::move(f));
}

struct TotalsSink {
    explicit TotalsSink(const std::string& path) : out(path, std::ios::trunc) {
        if (!out) throw std::runtime_error("cannot create '" + path + "'");
    }
    std::ofstream out;
};

rt::PipelineDefinition definition() {
    rt::PlanBuilder b;
    const rt::DomainId doc = b.add_domain("Doc");
    const rt::DomainId page = b.add_domain("Page", doc);
    const rt::PortId src = b.source("docs");
    const rt::PortId pages = b.add_port("pages", page);
    const rt::PortId mapped = b.add_port("mapped", page);
    const rt::PortId total = b.add_port("total", doc);
    rt::CallOptions o;
    o.batch = 8;
    o.actors = 2;
    const char* isolate = std::getenv("ROP_TEST_ISOLATE");
    const std::string isolated = "," + std::string(isolate ? isolate : "") + ",";
    rt::CallOptions sp = o;
    if (isolated.find(",split,") != std::string::npos) sp.isolation = rt::Isolation::Process;
    // A poisoned root value V (key -V) misbehaves in split after streaming its first page.
    b.add_call({"split",
                rt::CallKind::Expand,
                doc,
                {{src}},
                {pages},
                sp,
                actor([bad = poison()](rt::Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        const long v = bt.input(g, 0).get<long>();
                        for (long i = 0; i < v % 5 + 2; ++i) {
                            bt.emit_child(g, make_page(1000 * v + i));
                            if (auto it = bad.find(-v); i == 0 && it != bad.end()) {
                                misbehave(v, it->second);
                            }
                        }
                    }
                })});
    rt::CallOptions m = o;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    m.memory_mb = 512;  // (a sanitizer's shadow memory does not fit under an address-space limit)
#endif
    if (isolated.find(",m,") != std::string::npos) m.isolation = rt::Isolation::Process;
    rt::CallOptions r = o;
    if (isolated.find(",sum,") != std::string::npos) r.isolation = rt::Isolation::Process;
    // gpus is fixed at build time too: ROP_TEST_GPUS="M,SUM" (the MPI placement tests).
    if (const char* gpus = std::getenv("ROP_TEST_GPUS")) {
        const std::string text = gpus;
        m.gpus = std::stod(text.substr(0, text.find(',')));
        if (text.find(',') != std::string::npos)
            r.gpus = std::stod(text.substr(text.find(',') + 1));
    }
    const auto sum = [](rt::Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            long s = bt.parent(g).get<long>() * 1000000;
            for (const rt::Value& v : bt.input(g, 0).get<rt::ReduceGroup>().values) {
                s += v.get<long>();
            }
            bt.set_output(g, 0, rt::Value::of<long>(s));
        }
    };
    if (const char* pool_actors = std::getenv("ROP_TEST_POOL")) {
        rt::PoolSpec pool{"model"};
        pool.options.actors = static_cast<std::uint32_t>(std::stoul(pool_actors));
        pool.options.memory_mb = m.memory_mb;
        if (const char* gpus = std::getenv("ROP_TEST_POOL_GPUS"))
            pool.options.gpus = std::stod(gpus);
        if (isolated.find(",model,") != std::string::npos) {
            pool.options.isolation = rt::Isolation::Process;
        }
        pool.instance = []() -> rt::PoolInstance { return std::make_shared<PoolModel>(); };
        const rt::PoolId model = b.add_pool(std::move(pool));
        rt::CallSpec map{"m", rt::CallKind::Map, page, {{pages}}, {mapped}, {}, {}};
        map.options.batch = m.batch;
        map.pool = model;
        map.view = [](const rt::PoolInstance& i) -> std::unique_ptr<rt::Actor> {
            return std::make_unique<ForwardTo>(&static_cast<PoolModel*>(i.get())->map, i);
        };
        b.add_call(std::move(map));
        rt::CallSpec reduce{"sum", rt::CallKind::Reduce, doc, {{mapped}}, {total}, {}, {}};
        reduce.options.batch = r.batch;
        reduce.pool = model;
        reduce.view = [sum](const rt::PoolInstance&) -> std::unique_ptr<rt::Actor> {
            return actor(sum)();
        };
        b.add_call(std::move(reduce));
    } else {
        b.add_call({"m", rt::CallKind::Map, page, {{pages}}, {mapped}, m, [] {
                        return std::make_unique<MapActor>();
                    }});
        b.add_call({"sum", rt::CallKind::Reduce, doc, {{mapped}}, {total}, r, actor(sum)});
    }
    rt::PipelineDefinition def;
    def.name = "process_pipeline";
    def.version = "1";
    def.plan = b.build();
    def.sources.push_back({"docs", "Doc: NAME VALUE lines", "", [](const std::string& input) {
                               return std::make_unique<LineSource>(input);
                           }});
    def.sinks.push_back({"totals", "Doc.total, NAME TOTAL lines", total, "out/totals.txt",
                         [](const std::string& path) {
                             auto sink = std::make_shared<TotalsSink>(path);
                             rt::RootSinkBinding binding;
                             binding.write_root = [sink](const rt::RootKey& k,
                                                         std::span<const rt::Value> items) {
                                 for (const rt::Value& v : items) {
                                     sink->out << k.name << ' ' << v.get<long>() << '\n';
                                 }
                                 sink->out.flush();
                             };
                             return binding;
                         }});
    return def;
}

}  // namespace

int main(int argc, char** argv) { return rt::pipeline_main(argc, argv, definition()); }
