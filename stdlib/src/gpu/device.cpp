// std.gpu's device choice: loads librop_stdlib_gpu_cuda.so with dlopen (never unloaded), asks it
// for cudaGetDeviceCount once, and logs the decision once; the device path's calls go through
// the library's C interface (cuda_abi.h).
#include <dlfcn.h>
#include <rop/udf.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "cuda_abi.h"
#include "twins.h"

namespace rop::stdlib::gpu::detail {
namespace {

struct CudaLibrary {
    RopGpuDeviceCount device_count = nullptr;
    RopGpuResizeNormalize resize_normalize = nullptr;
    RopGpuLaplacianSums laplacian_sums = nullptr;
    RopGpuCurrentDevice current_device = nullptr;
    RopGpuTimeResize time_resize = nullptr;
};

struct Decision {
    bool decided = false;
    bool cuda = false;
    std::string notice;
    CudaLibrary library;
};

std::mutex decision_mutex;
Decision decision;  // guarded by decision_mutex

// Where the CUDA half may be: $ROP_GPU_CUDA_LIBRARY alone when set; else the build's lib/ (when
// CUDA was built) and then the loader's search path.
std::vector<std::string> library_candidates() {
    if (const char* path = std::getenv("ROP_GPU_CUDA_LIBRARY"); path != nullptr && *path != 0) {
        return {path};
    }
    std::vector<std::string> candidates;
#ifdef ROP_GPU_CUDA_LIBRARY_PATH
    candidates.emplace_back(ROP_GPU_CUDA_LIBRARY_PATH);
#endif
    candidates.emplace_back("librop_stdlib_gpu_cuda.so");
    return candidates;
}

// Loads the library and its functions; the reason it cannot, otherwise.
std::string load(CudaLibrary& library) {
    std::string reasons;
    for (const std::string& path : library_candidates()) {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* error = dlerror();
            reasons += (reasons.empty() ? "" : "; ") + std::string(error ? error : path.c_str());
            continue;
        }
        library.device_count =
            reinterpret_cast<RopGpuDeviceCount>(dlsym(handle, kRopGpuDeviceCount));
        library.resize_normalize =
            reinterpret_cast<RopGpuResizeNormalize>(dlsym(handle, kRopGpuResizeNormalize));
        library.laplacian_sums =
            reinterpret_cast<RopGpuLaplacianSums>(dlsym(handle, kRopGpuLaplacianSums));
        library.current_device =
            reinterpret_cast<RopGpuCurrentDevice>(dlsym(handle, kRopGpuCurrentDevice));
        library.time_resize = reinterpret_cast<RopGpuTimeResize>(dlsym(handle, kRopGpuTimeResize));
        if (library.device_count && library.resize_normalize && library.laplacian_sums &&
            library.current_device && library.time_resize) {
            return "";
        }
        reasons += (reasons.empty() ? "" : "; ") + path + " lacks the rop_gpu_cuda_* functions";
        library = CudaLibrary{};
    }
    return reasons;
}

void decide(Decision& d) {
    d.decided = true;
    constexpr const char* kTwins = ": the operators run their CPU twins";
    if (const char* mode = std::getenv("ROP_GPU"); mode != nullptr && std::string(mode) == "cpu") {
        d.notice = std::string("std.gpu: ROP_GPU=cpu") + kTwins;
        return;
    }
    if (const std::string failure = load(d.library); !failure.empty()) {
        d.notice = "std.gpu: no CUDA library (" + failure + ")" + kTwins;
        return;
    }
    int count = 0;
    std::array<char, 256> error{};
    const int status = d.library.device_count(&count, error.data(), error.size());
    if (status != 0) {
        // 35 (cudaErrorInsufficientDriver: no driver) and 100 (cudaErrorNoDevice) are the
        // ordinary "no GPU"; any other error is no usable GPU either.
        d.notice = "std.gpu: no CUDA device (cudaGetDeviceCount: error " + std::to_string(status) +
                   " " + error.data() + ")" + kTwins;
        return;
    }
    if (count == 0) {
        d.notice = std::string("std.gpu: no CUDA device (cudaGetDeviceCount: 0 devices)") + kTwins;
        return;
    }
    d.cuda = true;
    d.notice = "std.gpu: " + std::to_string(count) +
               " CUDA device(s): the operators run on each calling thread's current device";
}

// The decision, made (and logged) by the first caller.
const CudaLibrary* decided_library() {
    std::lock_guard lock(decision_mutex);
    if (!decision.decided) {
        decide(decision);
        std::fprintf(stderr, "%s\n", decision.notice.c_str());
        std::fflush(stderr);
    }
    return decision.cuda ? &decision.library : nullptr;
}

const CudaLibrary& cuda_library() {
    const CudaLibrary* library = decided_library();
    if (library == nullptr) throw std::logic_error("std.gpu: the device path without a device");
    return *library;
}

[[noreturn]] void fail(const char* op, const std::array<char, 512>& error) {
    throw rop::RecordFailure(std::string("std.gpu.") + op + ": " + error.data());
}

RopGpuImage view(const Image& image) {
    return RopGpuImage{image.pixels->data(), image.width, image.height, image.channels};
}

}  // namespace

bool use_cuda() { return decided_library() != nullptr; }

std::string device_notice() {
    std::lock_guard lock(decision_mutex);
    return decision.notice;
}

void reset_device_for_testing() {
    std::lock_guard lock(decision_mutex);
    decision = Decision{};
}

std::vector<float> resize_normalize_cuda(std::span<const Image> images, const ResizeRequest& r) {
    const CudaLibrary& library = cuda_library();
    std::vector<RopGpuImage> views;
    views.reserve(images.size());
    for (const Image& image : images) views.push_back(view(image));
    std::vector<float> out(images.size() * r.channels * static_cast<std::size_t>(r.height) *
                           r.width);
    std::array<char, 512> error{};
    if (library.resize_normalize(views.data(), static_cast<int>(views.size()), r.height, r.width,
                                 r.channels, r.mean.data(), r.stddev.data(), out.data(),
                                 error.data(), error.size()) != 0) {
        fail("resize_normalize", error);
    }
    return out;
}

LaplacianSums laplacian_sums_cuda(const Image& image) {
    const CudaLibrary& library = cuda_library();
    LaplacianSums sums;
    if (image.width < 3 || image.height < 3) return sums;
    const RopGpuImage v = view(image);
    std::array<char, 512> error{};
    if (library.laplacian_sums(&v, &sums.sum, &sums.sum_sq, error.data(), error.size()) != 0) {
        fail("laplacian_variance", error);
    }
    sums.count = static_cast<double>(image.width - 2) * (image.height - 2);
    return sums;
}

KernelTiming time_resize_cuda(std::span<const Image> images, const ResizeRequest& r, int repeats) {
    const CudaLibrary& library = cuda_library();
    std::vector<RopGpuImage> views;
    for (const Image& image : images) views.push_back(view(image));
    KernelTiming timing;
    std::array<char, 512> error{};
    if (library.time_resize(views.data(), static_cast<int>(views.size()), r.height, r.width,
                            r.channels, repeats, &timing.seconds, &timing.bytes,
                            &timing.peak_bytes_per_second, error.data(), error.size()) != 0) {
        fail("resize_normalize", error);
    }
    return timing;
}

int current_cuda_device() {
    const CudaLibrary* library = decided_library();
    return library == nullptr ? -1 : library->current_device();
}

}  // namespace rop::stdlib::gpu::detail
