// UDFs of bench/pools (issue 35's benchmark): the B2 study's pipeline with a second model step.
// Pages are OCR'd and then "described" by a model; the model stand-in holds POOL_MODEL_MIB MiB
// (allocated and touched when it is made: the weights) and logs each instance it makes to
// POOL_MODEL_LOG (one line: "model PID MIB"), so the runs can count instances and their bytes.
// Costs are slept like the study's (study_udfs.hpp, STUDY_COST); the description step costs
// POOL_DESCRIBE_COST = "batch page" modelled seconds (default 3.0 0.7: about half of OCR's).
//   shared.rop:   pool model = study.Model() actors N; ocr and describe are its two methods
//   separate.rop: study.OcrModel and study.DescribeModel, each Call with actors of its own
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../study/rop/study_udfs.hpp"

namespace study {

// The model's weights: POOL_MODEL_MIB MiB, touched page by page (resident), logged once made.
class ModelWeights {
  public:
    ModelWeights() {
        const char* mib = std::getenv("POOL_MODEL_MIB");
        bytes_ = std::size_t(mib ? std::atol(mib) : 64) << 20;
        weights_ = std::make_unique<char[]>(bytes_);
        for (std::size_t i = 0; i < bytes_; i += 4096) weights_[i] = char(i >> 12);
        if (const char* log = std::getenv("POOL_MODEL_LOG")) {
            const std::string line =
                "model " + std::to_string(::getpid()) + " " + std::to_string(bytes_ >> 20) + "\n";
            const int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
            if (fd >= 0) {
                [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
                ::close(fd);
            }
        }
    }
    ModelWeights(const ModelWeights&) = delete;
    ModelWeights& operator=(const ModelWeights&) = delete;

  protected:
    // The OCR step: the study's batch OCR, as study::Ocr.
    std::vector<rop::ItemResult<std::uint64_t>> run_ocr(std::span<const PageRef> pages) {
        return ocr_(pages);
    }
    // The description step: a fixed batch cost, then each page's, at absolute deadlines.
    std::vector<std::uint64_t> run_describe(std::span<const std::uint64_t> texts) {
        double batch = 3.0, page = 0.7;
        if (const char* s = std::getenv("POOL_DESCRIBE_COST")) {
            batch = std::strtod(s, nullptr);
            if (const char* sp = std::strchr(s, ' ')) page = std::strtod(sp + 1, nullptr);
        }
        auto t = std::chrono::steady_clock::now() + Cost::real(batch);
        std::vector<std::uint64_t> out;
        out.reserve(texts.size());
        for (std::size_t i = 0; i < texts.size(); ++i) {
            t += Cost::real(page);
            std::this_thread::sleep_until(t);
            out.push_back(mix(texts[i] ^ std::uint64_t(weights_[0])));
        }
        return out;
    }

  private:
    std::size_t bytes_ = 0;
    std::unique_ptr<char[]> weights_;
    Ocr ocr_;
};

// One model, two steps: the shared pool's class.
class Model : public ModelWeights {
  public:
    std::vector<rop::ItemResult<std::uint64_t>> ocr(std::span<const PageRef> pages) {
        return run_ocr(pages);
    }
    std::vector<std::uint64_t> describe(std::span<const std::uint64_t> texts) {
        return run_describe(texts);
    }
};

// The same model loaded by each step on its own (separate.rop).
class OcrModel : public ModelWeights {
  public:
    std::vector<rop::ItemResult<std::uint64_t>> operator()(std::span<const PageRef> pages) {
        return run_ocr(pages);
    }
};
class DescribeModel : public ModelWeights {
  public:
    std::vector<std::uint64_t> operator()(std::span<const std::uint64_t> texts) {
        return run_describe(texts);
    }
};

}  // namespace study
