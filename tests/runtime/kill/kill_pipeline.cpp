// The pipeline the kill-and-resume test SIGKILLs (kill_resume_test.cpp): a hand-written
// PipelineDefinition run by pipeline_main, like a generated binary.
//   docs  (source): a text file, one root per line: "NAME VALUE"
//   split (expand): VALUE % 7 + 1 pages, valued 1000 * VALUE + i
//   m     (map):    3 * page + 1 (sleeps a little per batch so that kills land mid-run)
//   sum   (reduce): Batch::parent (the root's VALUE) * 1e6 + the sum of the pages
//   totals (sink):  JSONL, one line per root, appended, fsynced per commit group (sync());
//                   checkpoint = file size, restore = truncate to it (std.io.Jsonl's pattern)
//   pages  (sink):  one file per root, NAME.txt, the mapped pages in ordinal order, written to a
//                   temp file + fsync + rename; stale temp files are removed on open
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../pipeline_test_parts.h"
#include "rop/runtime/pipeline_main.h"

namespace rt = rop::runtime;

namespace {

[[noreturn]] void fail_errno(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

void write_fully(int fd, const std::string& text, const std::string& path) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail_errno("write '" + path + "'");
        done += static_cast<std::size_t>(n);
    }
}

// Append-style sink: one chunk per root, fsynced per commit group (sync(), as std.io.Jsonl);
// the checkpoint is the file size.
struct JsonlSink {
    explicit JsonlSink(std::string p) : path(std::move(p)) {
        fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) fail_errno("cannot create '" + path + "'");
    }
    ~JsonlSink() { ::close(fd); }
    void write(const rt::RootKey& key, std::span<const rt::Value> items) {
        std::string chunk;
        for (const rt::Value& v : items) {
            chunk += "{\"root\":" + std::to_string(key.ordinal) + ",\"name\":\"" + key.name +
                     "\",\"total\":" + std::to_string(v.get<long>()) + "}\n";
        }
        if (::lseek(fd, 0, SEEK_END) < 0) fail_errno("seek '" + path + "'");
        write_fully(fd, chunk, path);
    }
    void sync() {
        if (::fsync(fd) != 0) fail_errno("fsync '" + path + "'");
    }
    std::string checkpoint() {
        const off_t end = ::lseek(fd, 0, SEEK_END);
        if (end < 0) fail_errno("seek '" + path + "'");
        return std::to_string(end);
    }
    void restore(const std::string& token) {
        const off_t size = token.empty() ? 0 : static_cast<off_t>(std::stoll(token));
        if (::ftruncate(fd, size) != 0) fail_errno("truncate '" + path + "'");
        if (::fsync(fd) != 0) fail_errno("fsync '" + path + "'");
    }
    std::string path;
    int fd = -1;
};

// One file per root: temp + fsync + rename (idempotent per root: a rerun rewrites it).
struct FilesSink {
    explicit FilesSink(std::string d) : dir(std::move(d)) {
        std::filesystem::create_directories(dir);
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() == ".tmp") std::filesystem::remove(entry.path());
        }
    }
    void write(const rt::RootKey& key, std::span<const rt::Value> items) {
        std::string text;
        for (const rt::Value& v : items) text += std::to_string(v.get<long>()) + "\n";
        const std::string final_path = dir + "/" + key.name + ".txt";
        const std::string temp = final_path + ".tmp";
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fail_errno("cannot create '" + temp + "'");
        write_fully(fd, text, temp);
        if (::fsync(fd) != 0) fail_errno("fsync '" + temp + "'");
        ::close(fd);
        if (std::rename(temp.c_str(), final_path.c_str()) != 0) fail_errno("rename '" + temp + "'");
    }
    std::string dir;
};

using rop::runtime::test::LineSource;

rt::ActorFactory actor(std::function<void(rt::Batch&)> f) {
    return rop::runtime::test::fn_actor(std::move(f));
}

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
    b.add_call({"split", rt::CallKind::Expand, doc, {{src}}, {pages}, o, actor([](rt::Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        const long v = bt.input(g, 0).get<long>();
                        for (long i = 0; i < v % 7 + 1; ++i) {
                            bt.emit_child(g, rt::Value::of<long>(1000 * v + i));
                        }
                    }
                })});
    b.add_call({"m", rt::CallKind::Map, page, {{pages}}, {mapped}, o, actor([](rt::Batch& bt) {
                    std::this_thread::sleep_for(std::chrono::microseconds(300));
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        bt.set_output(g, 0,
                                      rt::Value::of<long>(3 * bt.input(g, 0).get<long>() + 1));
                    }
                })});
    b.add_call({"sum", rt::CallKind::Reduce, doc, {{mapped}}, {total}, o, actor([](rt::Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        long s = bt.parent(g).get<long>() * 1000000;
                        for (const rt::Value& v : bt.input(g, 0).get<rt::ReduceGroup>().values) {
                            s += v.get<long>();
                        }
                        bt.set_output(g, 0, rt::Value::of<long>(s));
                    }
                })});
    rt::PipelineDefinition def;
    def.name = "kill_pipeline";
    def.version = "1";
    def.plan = b.build();
    def.sources.push_back({"docs", "Doc: NAME VALUE lines", "", [](const std::string& input) {
                               return std::make_unique<LineSource>(input);
                           }});
    def.sinks.push_back(
        {"totals", "Doc.total as JSONL", total, "out/totals.jsonl", [](const std::string& path) {
             auto sink = std::make_shared<JsonlSink>(path);
             rt::RootSinkBinding binding;
             binding.write_root = [sink](const rt::RootKey& k, std::span<const rt::Value> items) {
                 sink->write(k, items);
             };
             binding.checkpoint = [sink] { return sink->checkpoint(); };
             binding.restore = [sink](const std::string& t) { sink->restore(t); };
             binding.sync = [sink] { sink->sync(); };
             return binding;
         }});
    def.sinks.push_back({"pages", "Page.mapped, one file per root", mapped, "out/pages",
                         [](const std::string& path) {
                             auto sink = std::make_shared<FilesSink>(path);
                             rt::RootSinkBinding binding;
                             binding.write_root = [sink](const rt::RootKey& k,
                                                         std::span<const rt::Value> items) {
                                 sink->write(k, items);
                             };
                             return binding;
                         }});
    return def;
}

}  // namespace

int main(int argc, char** argv) { return rt::pipeline_main(argc, argv, definition()); }
