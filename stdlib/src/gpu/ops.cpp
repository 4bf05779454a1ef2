// std.gpu's operators: check the request, then run it on the device or on the CPU twin
// (twins.h), whichever the process's device choice says.
#include <rop/stdlib/gpu.h>
#include <rop/stdlib/video.h>

#include <string>

#include "arithmetic.h"
#include "twins.h"

namespace rop::stdlib::gpu {
namespace {

[[noreturn]] void fail(const std::string& message) {
    throw rop::RecordFailure("std.gpu.resize_normalize: " + message);
}

std::vector<float> per_channel(const std::vector<double>& values, int channels, const char* name) {
    if (values.size() != 1 && values.size() != static_cast<std::size_t>(channels)) {
        fail(std::string(name) + " has " + std::to_string(values.size()) + " values for " +
             std::to_string(channels) + " channel(s)");
    }
    std::vector<float> out;
    for (int c = 0; c < channels; ++c) {
        out.push_back(static_cast<float>(values[values.size() == 1 ? 0 : c]));
    }
    return out;
}

// An image the operators can read: 1 or 3 channels, at least 1 x 1, all its bytes there.
std::string image_problem(const Image& image) {
    if (image.empty()) return "is empty";
    if (image.channels != 1 && image.channels != 3) {
        return "has " + std::to_string(image.channels) + " channels (1 or 3)";
    }
    if (image.pixels->size() < image.stride() * static_cast<std::size_t>(image.height)) {
        return "has " + std::to_string(image.pixels->size()) + " bytes for " +
               std::to_string(image.width) + " x " + std::to_string(image.height) + " x " +
               std::to_string(image.channels);
    }
    return "";
}

detail::ResizeRequest request(int height, int width, const std::vector<double>& mean,
                              const std::vector<double>& stddev, int channels) {
    if (height <= 0 || width <= 0) {
        fail("size " + std::to_string(width) + " x " + std::to_string(height) + " is not positive");
    }
    if (channels != 1 && channels != 3) {
        fail("channels " + std::to_string(channels) + " (1 or 3)");
    }
    detail::ResizeRequest r{height, width, channels, per_channel(mean, channels, "mean"),
                            per_channel(stddev, channels, "stddev")};
    for (const float s : r.stddev) {
        if (s == 0.0f) fail("a stddev of 0");
    }
    return r;
}

std::vector<float> run(std::span<const Image> images, const detail::ResizeRequest& r) {
    return detail::use_cuda() ? detail::resize_normalize_cuda(images, r)
                              : detail::resize_normalize_cpu(images, r);
}

Tensor tensor(int n, const detail::ResizeRequest& r, std::vector<float> data) {
    return Tensor{n, r.channels, r.height, r.width,
                  std::make_shared<const std::vector<float>>(std::move(data))};
}

// One tensor per image, from the batch's one.
std::vector<Tensor> split(const std::vector<float>& batch, std::size_t count,
                          const detail::ResizeRequest& r) {
    const std::size_t each = static_cast<std::size_t>(r.channels) * r.height * r.width;
    std::vector<Tensor> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto first = batch.begin() + static_cast<std::ptrdiff_t>(i * each);
        out.push_back(tensor(1, r, std::vector<float>(first, first + static_cast<long>(each))));
    }
    return out;
}

}  // namespace

std::string backend() { return detail::use_cuda() ? "cuda" : "cpu"; }

Tensor resize_normalize(std::span<const Image> images, int height, int width,
                        std::vector<double> mean, std::vector<double> stddev, int channels) {
    const detail::ResizeRequest r = request(height, width, mean, stddev, channels);
    for (std::size_t i = 0; i < images.size(); ++i) {
        if (const std::string problem = image_problem(images[i]); !problem.empty()) {
            fail("image " + std::to_string(i) + " " + problem);
        }
    }
    return tensor(static_cast<int>(images.size()), r, run(images, r));
}

double laplacian_variance(const Image& image) {
    if (const std::string problem = image_problem(image); !problem.empty()) {
        throw rop::RecordFailure("std.gpu.laplacian_variance: the image " + problem);
    }
    const detail::LaplacianSums sums =
        detail::use_cuda() ? detail::laplacian_sums_cuda(image) : detail::laplacian_sums_cpu(image);
    return sums.count == 0 ? 0 : detail::variance_from_sums(sums.sum, sums.sum_sq, sums.count);
}

std::vector<Tensor> frame_tensors(std::span<const video::Frame> frames, int height, int width,
                                  std::vector<double> mean, std::vector<double> stddev,
                                  int channels) {
    const detail::ResizeRequest r = request(height, width, mean, stddev, channels);
    std::vector<Image> images;
    images.reserve(frames.size());
    for (const video::Frame& frame : frames) {
        if (const std::string problem = image_problem(frame.image); !problem.empty()) {
            throw rop::RecordFailure(frame.video_name + ": frame " + std::to_string(frame.index) +
                                     " of clip " + std::to_string(frame.clip_index) + ": image " +
                                     problem);
        }
        images.push_back(frame.image);
    }
    return split(run(images, r), images.size(), r);
}

std::vector<rop::ItemResult<Tensor>> page_tensors(std::span<const Page> pages, int height,
                                                  int width, std::vector<double> mean,
                                                  std::vector<double> stddev, int channels) {
    const detail::ResizeRequest r = request(height, width, mean, stddev, channels);
    std::vector<Image> images;
    std::vector<std::string> problems;
    for (const Page& page : pages) {
        problems.push_back(image_problem(page.image));
        if (problems.back().empty()) images.push_back(page.image);
    }
    std::vector<Tensor> tensors = split(run(images, r), images.size(), r);
    std::vector<rop::ItemResult<Tensor>> out;
    std::size_t next = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        if (problems[i].empty()) {
            out.emplace_back(std::move(tensors[next++]));
        } else {
            out.emplace_back(rop::fail_item(pages[i].doc_name + ": page " +
                                            std::to_string(pages[i].index + 1) + ": image " +
                                            problems[i]));
        }
    }
    return out;
}

double sharpness(const video::Frame& frame) {
    if (frame.image.empty()) {
        throw rop::RecordFailure(frame.video_name + ": frame " + std::to_string(frame.index) +
                                 " of clip " + std::to_string(frame.clip_index) + " has no image");
    }
    return laplacian_variance(frame.image);
}

video::Frame with_sharpness(const video::Frame& frame) {
    video::Frame scored = frame;
    scored.sharpness = gpu::sharpness(frame);
    return scored;
}

bool sharp(const video::Frame& frame, double min) {
    return (frame.sharpness >= 0 ? frame.sharpness : gpu::sharpness(frame)) >= min;
}

}  // namespace rop::stdlib::gpu
