#include "bind/checks/check_record_types.h"

#include "bind/records.h"
#include "bind/types.h"

namespace rop::bind {

void check_record_types(BindContext& ctx, const sema::Call& call, const BoundCall& bound) {
    if (bound.decl == nullptr || !bound.decl->record_type || !call.op) return;
    const CxxType& record = *bound.decl->record_type;
    const TypeCodec* entry = find_codec_entry(ctx.out.library, record.canonical);
    if (entry == nullptr) return;  // never read: nothing to say
    const std::string what = bound.decl->record_csv ? "a CSV record" : "a JSON record";
    for (const RecordProblem& problem :
         record_problems(ctx.out.library, *entry, bound.decl->record_csv)) {
        const std::string subject = problem.field.empty() ? in_quotes(problem.type)
                                                          : "field " + in_quotes(problem.field) +
                                                                " of " + in_quotes(problem.type);
        std::string text = problem.text;
        // codec_problem_text words it from the struct ("field 'x' ... is private"); here the
        // subject already names the field.
        if (!problem.field.empty() && text.starts_with("field ")) {
            const std::size_t cut = text.find(problem.field + "' ");
            if (cut != std::string::npos) text = text.substr(cut + problem.field.size() + 2);
        } else if (text.starts_with("it ")) {
            text = text.substr(3);
        }
        Diagnostic& d = ctx.diags.report(DiagId::UnmappableRecordType, call.op->name_range,
                                         in_quotes(rop_name(bound.decl->qualified_name)) +
                                             " reads or writes " + in_quotes(display_name(record)) +
                                             " as " + what + ", but " + subject + " " + text);
        if (problem.location.valid()) {
            d.notes.push_back(ctx.notes.at(
                problem.location, in_quotes(problem.field.empty() ? problem.type : problem.field) +
                                      " is declared here"));
        }
    }
}

}  // namespace rop::bind
