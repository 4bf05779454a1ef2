// Parts the hand-written pipeline binaries of the runtime tests share (kill/kill_pipeline.cpp,
// process/process_pipeline.cpp): a source of "NAME VALUE" lines and a function as an Actor.
#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rop/runtime/pipeline_main.h"

namespace rop::runtime::test {

// One root per line of a text file: "NAME VALUE", the value a long.
class LineSource final : public RootSource {
  public:
    explicit LineSource(const std::string& path) {
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot open '" + path + "'");
        std::string name;
        long value = 0;
        while (in >> name >> value) roots_.emplace_back(name, value);
    }
    std::optional<Root> next() override {
        if (i_ == roots_.size()) return std::nullopt;
        const auto& [name, value] = roots_[i_++];
        return Root{Value::of<long>(value), name};
    }
    std::optional<std::size_t> size_hint() const override { return roots_.size(); }

  private:
    std::vector<std::pair<std::string, long>> roots_;
    std::size_t i_ = 0;
};

class FnActor final : public Actor {
  public:
    explicit FnActor(std::function<void(Batch&)> f) : f_(std::move(f)) {}
    void process(Batch& batch) override { f_(batch); }

  private:
    std::function<void(Batch&)> f_;
};

inline ActorFactory fn_actor(std::function<void(Batch&)> f) {
    return [f] { return std::make_unique<FnActor>(f); };
}

}  // namespace rop::runtime::test
