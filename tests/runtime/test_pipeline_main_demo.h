// A small pipeline definition for the pipeline_main tests: docs (comma-separated numbers) ->
// split (expand x into 100x..100x+x-1) -> m (map: double; 701 fails its record, 902 throws an
// opaque error) -> sum (reduce) -> sinks "totals" (the sums) and "pages" (the doubled pages).
#pragma once

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "rop/runtime/pipeline_main.h"
#include "runtime_test_util.h"

namespace rop::runtime::test {

// Roots from "1,2,3" or "@FILE" (numbers separated by commas or newlines).
class ListSource final : public RootSource {
  public:
    explicit ListSource(const std::string& input) {
        std::string text = input;
        if (!input.empty() && input[0] == '@') {
            std::ifstream in(input.substr(1));
            if (!in) throw std::runtime_error("cannot open '" + input.substr(1) + "'");
            std::stringstream ss;
            ss << in.rdbuf();
            text = ss.str();
        }
        std::string item;
        std::stringstream ss(text);
        while (std::getline(ss, item, text.find(',') != std::string::npos ? ',' : '\n')) {
            if (item.empty()) continue;
            std::size_t used = 0;
            long v = 0;
            try {
                v = std::stol(item, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != item.size()) throw std::runtime_error("'" + item + "' is not a number");
            values_.push_back(v);
        }
    }
    std::optional<Root> next() override {
        if (i_ == values_.size()) return std::nullopt;
        const long v = values_[i_++];
        return Root{Value::of<long>(v), "doc" + std::to_string(v)};
    }
    std::optional<std::size_t> size_hint() const override { return values_.size(); }

  private:
    std::vector<long> values_;
    std::size_t i_ = 0;
};

// What the sinks saw, and the largest batch the map Call got.
struct DemoSinks {
    std::mutex mu;
    std::vector<long> totals;
    std::vector<long> pages;
    std::string totals_path;
    std::string pages_path;
    std::atomic<std::size_t> max_map_batch{0};
};

inline PipelineDefinition demo_definition(DemoSinks& sinks, std::string default_input = "1,2,3") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("docs");
    const PortId pages = b.add_port("pages", page);
    const PortId doubled = b.add_port("doubled", page);
    const PortId total = b.add_port("total", doc);
    DemoSinks* s = &sinks;
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(8, 1),
                expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
    b.add_call(
        {"m", CallKind::Map, page, {{pages}}, {doubled}, opts(16, 2), actor([s](Batch& batch) {
             std::size_t seen = s->max_map_batch.load();
             while (seen < batch.size() &&
                    !s->max_map_batch.compare_exchange_weak(seen, batch.size())) {
             }
             for (std::size_t g = 0; g < batch.size(); ++g) {
                 const long x = batch.input(g, 0).get<long>();
                 if (x == 902) throw std::runtime_error("boom on 902");
                 if (x == 701) {
                     batch.fail_record(g, "bad page 701");
                     continue;
                 }
                 batch.set_output(g, 0, Value::of<long>(2 * x));
             }
         })});
    b.add_call({"sum", CallKind::Reduce, doc, {{doubled}}, {total}, opts(4, 1), sum_group()});

    PipelineDefinition def;
    def.name = "demo";
    def.version = "0.1.0";
    def.rop_path = "demo.rop";
    def.plan = b.build();
    def.sources.push_back({"docs", "Doc: numbers", std::move(default_input),
                           [](const std::string& input) -> std::unique_ptr<RootSource> {
                               return std::make_unique<ListSource>(input);
                           }});
    def.sinks.push_back({"totals", "Doc.total", total, "totals.txt", [s](const std::string& path) {
                             s->totals_path = path;
                             RootSinkBinding binding;
                             binding.write_root = [s](const RootKey&,
                                                      std::span<const Value> items) {
                                 std::lock_guard<std::mutex> lock(s->mu);
                                 for (const Value& v : items) s->totals.push_back(v.get<long>());
                             };
                             return binding;
                         }});
    def.sinks.push_back(
        {"pages", "Page.doubled", doubled, "pages.txt", [s](const std::string& path) {
             if (path == "/unwritable") {
                 throw std::runtime_error("cannot create '/unwritable'");
             }
             s->pages_path = path;
             RootSinkBinding binding;
             binding.write_root = [s](const RootKey&, std::span<const Value> items) {
                 std::lock_guard<std::mutex> lock(s->mu);
                 for (const Value& v : items) s->pages.push_back(v.get<long>());
             };
             return binding;
         }});
    def.calls = {{"split", CallKind::Expand, "split_pages"},
                 {"m", CallKind::Map, "double_page"},
                 {"sum", CallKind::Reduce, "sum_pages"}};
    return def;
}

// argv for parse_pipeline_args / pipeline_main: {"demo", args...}.
struct Argv {
    explicit Argv(const std::vector<std::string>& args) {
        strings.reserve(args.size() + 1);
        strings.emplace_back("demo");
        for (const std::string& a : args) strings.push_back(a);
        for (const std::string& a : strings) pointers.push_back(a.c_str());
    }
    int argc() const { return static_cast<int>(pointers.size()); }
    const char* const* argv() const { return pointers.data(); }
    std::vector<std::string> strings;
    std::vector<const char*> pointers;
};

}  // namespace rop::runtime::test
