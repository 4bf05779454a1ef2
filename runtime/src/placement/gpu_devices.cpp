// gpu_devices.h: the driver API through dlopen.
#include "gpu_devices.h"

#include <dlfcn.h>

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "rop/runtime/gpu.h"

namespace rop::runtime::detail {
namespace {

thread_local std::vector<int> t_devices;

// The few driver entry points used, as libcuda.so.1 exports them (cuda.h's ABI: CUresult is an
// int, CUdevice an int, CUcontext a pointer).
struct Driver {
    using Init = int (*)(unsigned);
    using Count = int (*)(int*);
    using Get = int (*)(int*, int);
    using Retain = int (*)(void**, int);
    using SetCurrent = int (*)(void*);
    Init init = nullptr;
    Count count = nullptr;
    Get get = nullptr;
    Retain retain = nullptr;
    SetCurrent set_current = nullptr;
    int init_result = -1;
    std::string error;  // why there is no driver
};

const Driver& driver() {
    static const Driver d = [] {
        Driver out;
        void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* e = ::dlerror();
            out.error = e ? e : "libcuda.so.1 not found";
            return out;
        }
        out.init = reinterpret_cast<Driver::Init>(::dlsym(lib, "cuInit"));
        out.count = reinterpret_cast<Driver::Count>(::dlsym(lib, "cuDeviceGetCount"));
        out.get = reinterpret_cast<Driver::Get>(::dlsym(lib, "cuDeviceGet"));
        out.retain = reinterpret_cast<Driver::Retain>(::dlsym(lib, "cuDevicePrimaryCtxRetain_v2"));
        if (!out.retain)
            out.retain = reinterpret_cast<Driver::Retain>(::dlsym(lib, "cuDevicePrimaryCtxRetain"));
        out.set_current = reinterpret_cast<Driver::SetCurrent>(::dlsym(lib, "cuCtxSetCurrent"));
        if (!out.init || !out.count || !out.get || !out.retain || !out.set_current) {
            out.error = "libcuda.so.1 lacks the driver API";
            out.init = nullptr;
            return out;
        }
        out.init_result = out.init(0);
        // 100: CUDA_ERROR_NO_DEVICE, 35: CUDA_ERROR_INSUFFICIENT_DRIVER, 999: unknown.
        if (out.init_result != 0) {
            out.error = "cuInit failed with error " + std::to_string(out.init_result) +
                        (out.init_result == 100  ? " (no device)"
                         : out.init_result == 35 ? " (insufficient driver)"
                                                 : "");
        }
        return out;
    }();
    return d;
}

std::optional<int> simulated() {
    const char* env = std::getenv("ROP_SIMULATE_GPUS");
    if (!env || !*env) return std::nullopt;
    const std::string_view text(env);
    int n = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0 || n > 1024) {
        throw std::invalid_argument("ROP_SIMULATE_GPUS='" + std::string(text) +
                                    "': expected a device count from 0 to 1024");
    }
    return n;
}

}  // namespace

GpuCount count_gpus() {
    if (const std::optional<int> n = simulated()) {
        return {*n, "ROP_SIMULATE_GPUS=" + std::to_string(*n)};
    }
    const Driver& d = driver();
    if (!d.init || d.init_result != 0) return {0, "no usable NVIDIA driver (" + d.error + ")"};
    int n = 0;
    if (d.count(&n) != 0) return {0, "the NVIDIA driver counts no device"};
    return {n, "NVIDIA driver"};
}

void pin_thread(const std::vector<int>& devices) {
    t_devices = devices;
    if (devices.empty() || simulated()) return;
    const Driver& d = driver();
    if (!d.init || d.init_result != 0) {
        throw std::runtime_error("cannot use GPU " + std::to_string(devices.front()) + ": " +
                                 d.error);
    }
    int device = 0;
    void* context = nullptr;
    if (int e = d.get(&device, devices.front()); e != 0) {
        throw std::runtime_error("GPU " + std::to_string(devices.front()) +
                                 ": cuDeviceGet failed with error " + std::to_string(e));
    }
    if (int e = d.retain(&context, device); e != 0) {
        throw std::runtime_error("GPU " + std::to_string(devices.front()) +
                                 ": cuDevicePrimaryCtxRetain failed with error " +
                                 std::to_string(e));
    }
    if (int e = d.set_current(context); e != 0) {
        throw std::runtime_error("GPU " + std::to_string(devices.front()) +
                                 ": cuCtxSetCurrent failed with error " + std::to_string(e));
    }
}

std::string visible_devices_of_thread() {
    std::string out;
    for (int d : t_devices) out += (out.empty() ? "" : ",") + std::to_string(d);
    return out;
}

}  // namespace rop::runtime::detail

namespace rop::runtime {

const std::vector<int>& assigned_gpus() noexcept { return detail::t_devices; }

}  // namespace rop::runtime
