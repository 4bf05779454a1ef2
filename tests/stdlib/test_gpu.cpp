// std.gpu: the CPU twins against naive references written here (exact known values), the
// fallback to the twins when there is no device (logged once), and GPU against CPU when a CUDA
// device is present (skipped otherwise; tools/gpu/run_gpu_tests.sh runs them on a GPU machine).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rop/stdlib/gpu.h"
#include "rop/stdlib/video.h"
#include "twins.h"

#ifdef ROP_GPU_TEST_CUDART
#include <cuda_runtime.h>
#endif

using namespace rop::stdlib;
namespace detail = rop::stdlib::gpu::detail;
using Catch::Approx;

namespace {

Image image_of(int width, int height, int channels, std::vector<std::uint8_t> pixels) {
    return Image{width, height, channels,
                 std::make_shared<const std::vector<std::uint8_t>>(std::move(pixels))};
}

Image random_image(int width, int height, int channels, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * channels);
    for (auto& p : pixels) p = static_cast<std::uint8_t>(byte(rng));
    return image_of(width, height, channels, std::move(pixels));
}

// 1-pixel checkerboard: 255 where x + y is even.
Image checker(int width, int height) {
    std::vector<std::uint8_t> pixels;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) pixels.push_back((x + y) % 2 == 0 ? 255 : 0);
    }
    return image_of(width, height, 1, std::move(pixels));
}

// Naive reference, in double: the output channel's sample of a source pixel.
double reference_sample(const Image& image, int x, int y, int c, int out_channels) {
    const auto& p = *image.pixels;
    const std::size_t i = (static_cast<std::size_t>(y) * image.width + x) * image.channels;
    if (image.channels == out_channels) return p[i + c];
    if (image.channels == 1) return p[i];
    return std::floor((299.0 * p[i] + 587.0 * p[i + 1] + 114.0 * p[i + 2] + 500.0) / 1000.0);
}

// Naive reference bilinear resize (half-pixel centres, edges clamped) and normalize, in double.
std::vector<double> reference_resize(const std::vector<Image>& images, int height, int width,
                                     const std::vector<double>& mean,
                                     const std::vector<double>& stddev, int channels) {
    std::vector<double> out;
    for (const Image& image : images) {
        for (int c = 0; c < channels; ++c) {
            for (int y = 0; y < height; ++y) {
                const double sy = std::max(0.0, (y + 0.5) * image.height / height - 0.5);
                const int y0 = std::min(static_cast<int>(sy), image.height - 1);
                const int y1 = std::min(y0 + 1, image.height - 1);
                for (int x = 0; x < width; ++x) {
                    const double sx = std::max(0.0, (x + 0.5) * image.width / width - 0.5);
                    const int x0 = std::min(static_cast<int>(sx), image.width - 1);
                    const int x1 = std::min(x0 + 1, image.width - 1);
                    const double fx = sx - x0;
                    const double fy = sy - y0;
                    const double v =
                        (1 - fy) * ((1 - fx) * reference_sample(image, x0, y0, c, channels) +
                                    fx * reference_sample(image, x1, y0, c, channels)) +
                        fy * ((1 - fx) * reference_sample(image, x0, y1, c, channels) +
                              fx * reference_sample(image, x1, y1, c, channels));
                    out.push_back((v / 255.0 - mean[c]) / stddev[c]);
                }
            }
        }
    }
    return out;
}

// Naive reference variance of the Laplacian of the luma over the interior, two passes.
double reference_laplacian_variance(const Image& image) {
    if (image.width < 3 || image.height < 3) return 0;
    std::vector<double> gray;
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) gray.push_back(reference_sample(image, x, y, 0, 1));
    }
    std::vector<double> values;
    const int w = image.width;
    for (int y = 1; y + 1 < image.height; ++y) {
        for (int x = 1; x + 1 < w; ++x) {
            const int i = y * w + x;
            values.push_back(gray[i - 1] + gray[i + 1] + gray[i - w] + gray[i + w] - 4 * gray[i]);
        }
    }
    double mean = 0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(values.size());
    double variance = 0;
    for (double v : values) variance += (v - mean) * (v - mean);
    return variance / static_cast<double>(values.size());
}

double max_abs_difference(const std::vector<float>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, static_cast<double>(std::abs(a[i] - b[i])));
    }
    return worst;
}

const std::vector<double> kMean = {0.485, 0.456, 0.406};
const std::vector<double> kStd = {0.229, 0.224, 0.225};

// The images the twin comparisons run on: down- and upscaling, gray and RGB, odd sizes.
std::vector<Image> mixed_batch() {
    return {random_image(640, 480, 3, 1), random_image(17, 5, 1, 2), random_image(1, 1, 3, 3),
            random_image(300, 301, 3, 4), checker(9, 7)};
}

detail::ResizeRequest request(int height, int width, int channels, const std::vector<double>& mean,
                              const std::vector<double>& stddev) {
    detail::ResizeRequest r{height, width, channels, {}, {}};
    for (int c = 0; c < channels; ++c) {
        r.mean.push_back(static_cast<float>(mean[c]));
        r.stddev.push_back(static_cast<float>(stddev[c]));
    }
    return r;
}

// What the code writes to stderr (fd 2) between construction and finish().
class StderrCapture {
  public:
    StderrCapture() {
        std::fflush(stderr);
        path_ = "/tmp/rop_test_gpu_stderr." + std::to_string(getpid());
        const int fd = open(path_.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
        REQUIRE(fd >= 0);
        saved_ = dup(2);
        dup2(fd, 2);
        close(fd);
    }
    std::string finish() {
        std::fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        std::ifstream in(path_);
        std::stringstream text;
        text << in.rdbuf();
        std::remove(path_.c_str());
        return text.str();
    }

  private:
    std::string path_;
    int saved_ = -1;
};

int count_lines_with(const std::string& text, const std::string& needle) {
    int count = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.find(needle) != std::string::npos) ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("resize: a 2x2 image to 4x4 gives the known bilinear values") {
    const Image image = image_of(2, 2, 1, {0, 100, 200, 40});
    const std::vector<Image> images = {image};
    const gpu::Tensor t = gpu::resize_normalize(images, 4, 4, {0.0}, {1.0}, /*channels=*/1);
    REQUIRE(t.n == 1);
    REQUIRE(t.channels == 1);
    REQUIRE(t.size() == 16);
    const double expected[4][4] = {
        {0, 25, 75, 100}, {50, 58.75, 76.25, 85}, {150, 126.25, 78.75, 55}, {200, 160, 80, 40}};
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
            INFO("x " << x << " y " << y);
            CHECK(t.at(0, 0, y, x) * 255 == Approx(expected[y][x]).margin(1e-4));
        }
    }
}

TEST_CASE("normalize: (x / 255 - mean) / stddev per channel, gray repeated into RGB") {
    const std::vector<Image> images = {image_of(1, 1, 1, {100}), image_of(1, 1, 3, {0, 51, 255})};
    const gpu::Tensor t = gpu::resize_normalize(images, 2, 3, {0.5, 0.25, 0.0}, {0.25, 0.5, 2.0});
    REQUIRE(t.n == 2);
    REQUIRE(t.channels == 3);
    REQUIRE(t.height == 2);
    REQUIRE(t.width == 3);
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 3; ++x) {
            CHECK(t.at(0, 0, y, x) == Approx((100 / 255.0 - 0.5) / 0.25).margin(1e-6));
            CHECK(t.at(0, 1, y, x) == Approx((100 / 255.0 - 0.25) / 0.5).margin(1e-6));
            CHECK(t.at(0, 2, y, x) == Approx((100 / 255.0) / 2.0).margin(1e-6));
            CHECK(t.at(1, 0, y, x) == Approx(-2.0).margin(1e-6));
            CHECK(t.at(1, 1, y, x) == Approx((0.2 - 0.25) / 0.5).margin(1e-6));
            CHECK(t.at(1, 2, y, x) == Approx(0.5).margin(1e-6));
        }
    }
    // One value for every channel.
    const gpu::Tensor same = gpu::resize_normalize(images, 1, 1, {0.0}, {1.0});
    CHECK(same.at(1, 1, 0, 0) == Approx(0.2).margin(1e-6));
}

TEST_CASE("resize twin: random batches match the naive double reference within 1e-5") {
    const std::vector<Image> images = mixed_batch();
    for (const auto& [height, width, channels] :
         std::vector<std::tuple<int, int, int>>{{224, 224, 3}, {7, 13, 3}, {480, 640, 1}}) {
        INFO(width << " x " << height << " x " << channels);
        const std::vector<float> twin =
            detail::resize_normalize_cpu(images, request(height, width, channels, kMean, kStd));
        const std::vector<double> reference =
            reference_resize(images, height, width, kMean, kStd, channels);
        CHECK(max_abs_difference(twin, reference) <= 1e-5);
    }
}

TEST_CASE("resize: bad requests fail the record with a reason") {
    const std::vector<Image> images = {random_image(4, 4, 3, 1), Image{}};
    auto reason = [&](auto call) -> std::string {
        try {
            call();
        } catch (const rop::RecordFailure& failure) {
            return failure.reason();
        }
        return "(no failure)";
    };
    CHECK(reason([&] { gpu::resize_normalize(images, 2, 2); }) ==
          "std.gpu.resize_normalize: image 1 is empty");
    CHECK(reason([&] { gpu::resize_normalize(std::span(images).first(1), 0, 2); }) ==
          "std.gpu.resize_normalize: size 2 x 0 is not positive");
    CHECK(reason([&] { gpu::resize_normalize(std::span(images).first(1), 2, 2, {0.1, 0.2}); }) ==
          "std.gpu.resize_normalize: mean has 2 values for 3 channel(s)");
    CHECK(reason([&] { gpu::resize_normalize(std::span(images).first(1), 2, 2, {0}, {0}); }) ==
          "std.gpu.resize_normalize: a stddev of 0");
    CHECK(reason([&] { gpu::resize_normalize(std::span(images).first(1), 2, 2, {0}, {1}, 2); }) ==
          "std.gpu.resize_normalize: channels 2 (1 or 3)");
}

TEST_CASE("sharpness: constant 0, checkerboards their computed variance") {
    CHECK(gpu::laplacian_variance(image_of(5, 4, 1, std::vector<std::uint8_t>(20, 77))) == 0);
    // Every interior Laplacian of a 0/255 checkerboard is +-1020; a 6x6 has 8 of each sign.
    CHECK(gpu::laplacian_variance(checker(6, 6)) == 1020.0 * 1020.0);
    // A 5x5's interior has five -1020 and four +1020: mean -1020/9.
    CHECK(gpu::laplacian_variance(checker(5, 5)) == Approx(1020.0 * 1020.0 * 80 / 81));
    CHECK(gpu::laplacian_variance(image_of(2, 2, 1, {0, 255, 255, 0})) == 0);
}

TEST_CASE("sharpness twin: the naive reference's value, and std.video's") {
    for (const Image& image : mixed_batch()) {
        INFO(image.width << " x " << image.height << " x " << image.channels);
        CHECK(gpu::laplacian_variance(image) ==
              Approx(reference_laplacian_variance(image)).epsilon(1e-12));
        video::Frame frame;
        frame.image = image;
        CHECK(gpu::sharpness(frame) == gpu::laplacian_variance(image));
        CHECK(gpu::with_sharpness(frame).sharpness == gpu::sharpness(frame));
        CHECK(gpu::sharp(frame, 50) == (gpu::sharpness(frame) >= 50));
#ifdef ROP_GPU_TEST_HAVE_VIDEO  // the drop-in gives std.video's scores
        CHECK(gpu::sharpness(frame) == video::sharpness(frame));
        CHECK(gpu::with_sharpness(frame).sharpness == video::with_sharpness(frame).sharpness);
        CHECK(gpu::sharp(frame, 50) == video::sharp(frame, 50));
#endif
    }
}

TEST_CASE("frame_tensors and page_tensors: one tensor per item, a bad page fails alone") {
    std::vector<video::Frame> frames(2);
    frames[0].image = random_image(32, 24, 3, 7);
    frames[1].image = random_image(8, 8, 1, 8);
    const std::vector<gpu::Tensor> tensors = gpu::frame_tensors(frames, 16, 16);
    REQUIRE(tensors.size() == 2);
    const std::vector<Image> images = {frames[0].image, frames[1].image};
    const gpu::Tensor batch = gpu::resize_normalize(images, 16, 16);
    for (int i = 0; i < 2; ++i) {
        CHECK(tensors[i].n == 1);
        CHECK(tensors[i].size() == 3 * 16 * 16);
        CHECK(tensors[i].at(0, 2, 15, 15) == batch.at(i, 2, 15, 15));
        CHECK(tensors[i].at(0, 0, 3, 9) == batch.at(i, 0, 3, 9));
    }
    std::vector<Page> pages(3);
    pages[0].image = frames[0].image;
    pages[1].doc_name = "scan.pdf";
    pages[1].index = 1;
    pages[2].image = frames[1].image;
    const auto results = gpu::page_tensors(pages, 16, 16);
    REQUIRE(results.size() == 3);
    REQUIRE(results[0].ok());
    CHECK(results[0]->at(0, 1, 5, 5) == batch.at(0, 1, 5, 5));
    REQUIRE_FALSE(results[1].ok());
    CHECK(results[1].failure().reason == "scan.pdf: page 2: image is empty");
    REQUIRE(results[2].ok());
    CHECK(results[2]->at(0, 1, 5, 5) == batch.at(1, 1, 5, 5));
}

TEST_CASE("device choice: without a device the twins run, and it is logged once") {
    detail::reset_device_for_testing();
    StderrCapture capture;
    const std::vector<Image> images = {random_image(10, 10, 3, 5)};
    const std::string chosen = gpu::backend();
    for (int i = 0; i < 3; ++i) {
        gpu::resize_normalize(images, 4, 4);
        gpu::laplacian_variance(images[0]);
    }
    CHECK(gpu::backend() == chosen);
    const std::string log = capture.finish();
    if (chosen == "cuda") SKIP("a CUDA device is present: " + detail::device_notice());
    CHECK(chosen == "cpu");
    CHECK(count_lines_with(log, "std.gpu:") == 1);
    CHECK(count_lines_with(log, "the operators run their CPU twins") == 1);
#ifdef ROP_GPU_TEST_HAVE_CUDA
    // The CUDA half was built: it loaded, and cudaGetDeviceCount said why there is no GPU
    // (35: no driver, this machine; 100: a driver but no device).
    CHECK(count_lines_with(log, "no CUDA device (cudaGetDeviceCount: error ") == 1);
    const bool known = log.find("error 35 cudaErrorInsufficientDriver") != std::string::npos ||
                       log.find("error 100 cudaErrorNoDevice") != std::string::npos;
    CHECK(known);
#else
    CHECK(count_lines_with(log, "no CUDA library") == 1);
#endif
    CHECK(detail::current_cuda_device() == -1);
}

TEST_CASE("device choice: ROP_GPU=cpu forces the twins, logged once") {
    setenv("ROP_GPU", "cpu", 1);
    detail::reset_device_for_testing();
    StderrCapture capture;
    CHECK(gpu::backend() == "cpu");
    CHECK(gpu::laplacian_variance(checker(6, 6)) == 1020.0 * 1020.0);
    CHECK(gpu::backend() == "cpu");
    const std::string log = capture.finish();
    unsetenv("ROP_GPU");
    detail::reset_device_for_testing();
    CHECK(log == "std.gpu: ROP_GPU=cpu: the operators run their CPU twins\n");
}

TEST_CASE("GPU: resize_normalize on the device matches the CPU twin within 1e-5") {
    if (!detail::use_cuda()) SKIP("no CUDA device: " + detail::device_notice());
    const std::vector<Image> images = mixed_batch();
    for (const auto& [height, width, channels] : std::vector<std::tuple<int, int, int>>{
             {224, 224, 3}, {7, 13, 3}, {480, 640, 1}, {1080, 1920, 3}}) {
        INFO(width << " x " << height << " x " << channels);
        const detail::ResizeRequest r = request(height, width, channels, kMean, kStd);
        const std::vector<float> device = detail::resize_normalize_cuda(images, r);
        const std::vector<float> twin = detail::resize_normalize_cpu(images, r);
        const double worst = max_abs_difference(device, twin);
        WARN("max |GPU - CPU| = " << worst);
        CHECK(worst <= 1e-5);
    }
    CHECK(gpu::backend() == "cuda");
}

TEST_CASE("GPU: the cuDNN Laplacian variance equals the CPU twin's") {
    if (!detail::use_cuda()) SKIP("no CUDA device: " + detail::device_notice());
    std::vector<Image> images = mixed_batch();
    images.push_back(random_image(1920, 1080, 3, 11));
    images.push_back(checker(6, 6));
    images.push_back(random_image(3, 3, 1, 12));
    for (const Image& image : images) {
        INFO(image.width << " x " << image.height << " x " << image.channels);
        const detail::LaplacianSums device = detail::laplacian_sums_cuda(image);
        const detail::LaplacianSums twin = detail::laplacian_sums_cpu(image);
        CHECK(device.sum == twin.sum);
        CHECK(device.sum_sq == twin.sum_sq);
        CHECK(device.count == twin.count);
    }
    CHECK(gpu::laplacian_variance(checker(6, 6)) == 1020.0 * 1020.0);
}

TEST_CASE("GPU: the operators run on the calling thread's current device") {
    if (!detail::use_cuda()) SKIP("no CUDA device: " + detail::device_notice());
#ifdef ROP_GPU_TEST_CUDART
    int count = 0;
    REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
    const int last = count - 1;
    // A thread of its own: no buffers yet (they are kept per thread and device), as an actor's.
    int seen_device = -2;
    int current = -2;
    std::size_t free_before = 0;
    std::size_t free_after = 0;
    int n = 0;
    std::thread actor([&] {
        std::size_t total = 0;
        if (cudaSetDevice(last) != cudaSuccess) return;
        seen_device = detail::current_cuda_device();
        cudaMemGetInfo(&free_before, &total);
        const std::vector<Image> images = {random_image(4096, 4096, 3, 9)};
        n = gpu::resize_normalize(images, 2048, 2048).n;
        cudaMemGetInfo(&free_after, &total);
        cudaGetDevice(&current);
    });
    actor.join();
    CHECK(seen_device == last);
    CHECK(n == 1);
    CHECK(free_after < free_before);  // its buffers (48 MiB in, 48 MiB out) are on `last`
    CHECK(current == last);           // left as it was
#else
    SKIP("the test was built without the CUDA runtime");
#endif
}

TEST_CASE("sharp: a score already on the frame is used as it is") {
    video::Frame frame;
    frame.image = checker(6, 6);  // scores 1040400 when measured
    frame.sharpness = 10;
    CHECK_FALSE(gpu::sharp(frame, 50));
    frame.sharpness = -1;
    CHECK(gpu::sharp(frame, 50));
    CHECK(gpu::with_sharpness(frame).sharpness == 1020.0 * 1020.0);
}

// Benchmark B6's device half (hidden; tools/gpu/run_gpu_tests.sh runs it): the resize kernel
// alone on 32 uploaded 1080p RGB frames, its bytes moved per second against the device's peak.
TEST_CASE("GPU bench: the resize kernel against the memory bandwidth", "[.bench]") {
    if (!detail::use_cuda()) SKIP("no CUDA device: " + detail::device_notice());
    const std::vector<Image> frames(32, random_image(1920, 1080, 3, 21));
    for (const auto& [height, width] : std::vector<std::pair<int, int>>{{540, 960}, {224, 224}}) {
        const detail::KernelTiming t =
            detail::time_resize_cuda(frames, request(height, width, 3, kMean, kStd), 50);
        REQUIRE(t.seconds > 0);
        REQUIRE(t.peak_bytes_per_second > 0);
        const double rate = t.bytes / t.seconds;
        WARN("B6 gpu: 32 x 1920x1080 RGB -> "
             << width << "x" << height << "x3 float: " << t.seconds * 1e3 << " ms, "
             << 32 / t.seconds << " frames/s, " << rate / 1e9 << " GB/s of "
             << t.peak_bytes_per_second / 1e9
             << " GB/s peak = " << 100 * rate / t.peak_bytes_per_second << "%");
    }
}
