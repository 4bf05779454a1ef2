// libx264's CPU features less AVX-512, read from the libx264 FFmpeg loaded (see x264_cpu.h).
#include "x264_cpu.h"

#include <dlfcn.h>

#include <cstdint>
#include <string_view>

namespace rop::stdlib::video::detail {
namespace {

// x264's x264_cpu_name_t (common/cpu.h): a feature name and every flag it implies, the table
// ending with an entry whose flags are 0. x264.h is not needed to build rop: both symbols are
// looked up in the process, where libavcodec's libx264 put them.
struct X264CpuName {
    const char* name;
    std::uint32_t flags;
};

std::uint32_t flags_named(const X264CpuName* names, std::string_view name) {
    for (; names->flags != 0; ++names) {
        if (name == names->name) {
            return names->flags;
        }
    }
    return 0;
}

std::string find_asm_without_avx512() {
    using Detect = std::uint32_t (*)();
    const auto detect = reinterpret_cast<Detect>(::dlsym(RTLD_DEFAULT, "x264_cpu_detect"));
    const auto* names = static_cast<const X264CpuName*>(::dlsym(RTLD_DEFAULT, "x264_cpu_names"));
    if (detect == nullptr || names == nullptr) {
        return "";
    }
    // "AVX512" names AVX2's flags and its own bit: the bit is what AVX2 lacks.
    const std::uint32_t avx512 = flags_named(names, "AVX512") & ~flags_named(names, "AVX2");
    const std::uint32_t cpu = detect();
    if ((cpu & avx512) == 0) {
        return "";
    }
    return std::to_string(cpu & ~avx512);
}

}  // namespace

const std::string& x264_asm_without_avx512() {
    static const std::string value = find_asm_without_avx512();
    return value;
}

}  // namespace rop::stdlib::video::detail
