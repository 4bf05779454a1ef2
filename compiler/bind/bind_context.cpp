#include "bind/bind_context.h"

#include <filesystem>

#include "bind/types.h"

namespace rop::bind {

BindContext::BindContext(const sema::CheckedProgram& checked, const std::string& rop_path,
                         const ProgramBindOptions& bind_options, DiagnosticEngine& engine)
    : program(checked),
      options(bind_options),
      diags(engine),
      notes(bind_options.sources),
      rop_dir(std::filesystem::path(rop_path).parent_path().string()) {}

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string rop_name(const std::string& qualified) {
    std::string out = qualified;
    constexpr std::string_view kStd = "rop::stdlib::";
    if (out.rfind(kStd, 0) == 0) out = "std::" + out.substr(kStd.size());
    for (std::size_t at = out.find("::"); at != std::string::npos; at = out.find("::", at + 1)) {
        out.replace(at, 2, ".");
    }
    return out;
}

bool flows(const CxxType& got, const CxxType& want) {
    if (same_type(got, want)) return true;
    return got.form == TypeForm::Vector && want.form == TypeForm::Vector && !got.args.empty() &&
           !want.args.empty() && flows(got.args[0], want.args[0]);
}

const UdfParam* input_param(const UdfDecl& decl, const Binding& binding, std::size_t index) {
    if (index >= binding.inputs.size()) return nullptr;
    const std::size_t at = binding.inputs[index].param_index;
    if (binding.shape == Shape::Sink) {
        return decl.write_methods.empty() || at >= decl.write_methods[0].params.size()
                   ? nullptr
                   : &decl.write_methods[0].params[at];
    }
    return at < decl.params.size() ? &decl.params[at] : nullptr;
}

SourceRange producer_range(const BindContext& ctx, sema::PortId port) {
    const sema::Call& producer = ctx.program.calls[ctx.program.ports[port].producer];
    return producer.op ? producer.op->name_range : producer.range;
}

SourceRange use_range(const BindContext& ctx, std::size_t use) {
    SourceRange range = ctx.program.use_ranges.at(use);
    const std::string_view text = ctx.diags.sources().text(range.file);
    if (range.end <= text.size()) {
        std::size_t quote = text.find('"', range.begin);
        if (quote != std::string_view::npos && quote < range.end) {
            range.begin = static_cast<std::uint32_t>(quote);
        }
    }
    return range;
}

}  // namespace rop::bind
