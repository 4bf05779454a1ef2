// read_codecs: which item types can cross a process boundary, and how (docs/udfs.md, "Types that
// cross a process boundary"). A type has a codec when the headers specialize rop::Codec for it,
// when it is a standard type rop/codec.h encodes (numbers, enums, std::string, the containers,
// std::shared_ptr<const T>, ...) whose element types have codecs, or when it is a struct whose
// public fields all have codecs (ropc generates a rop::FieldsCodec for it). The rules here mirror
// rop/codec.h; tests/codegen compiles the generated codecs against it.
//
// Compiled in the unity translation unit of udf_reader.cpp (see CMakeLists.txt); GCC's
// -Wnull-dereference fires inside inlined Clang header code (see decl_collector.cpp).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wnonnull"
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/QualTypeNames.h>

#include <map>
#include <set>

#include "bind/clang_bridge.h"

namespace rop::bind::detail {
namespace {

using namespace clang;

// Where a type's codec fails: the field path, that field's type, why, and where it is declared.
struct Verdict {
    bool ok = true;
    std::string field;
    std::string type;
    std::string why;
    bool about_field = false;  // `why` is about the field (private, const), not its type
    SourceLoc location;
};

// Template arguments that must have codecs, for each standard template rop/codec.h encodes:
// their indices (-1: every type argument, for tuples and variants).
const std::map<std::string, std::vector<int>>& builtin_templates() {
    static const std::map<std::string, std::vector<int>> templates = {
        {"std::vector", {0}},
        {"std::optional", {0}},
        {"std::array", {0}},
        {"std::set", {0}},
        {"std::unordered_set", {0}},
        {"std::map", {0, 1}},
        {"std::unordered_map", {0, 1}},
        {"std::pair", {0, 1}},
        {"std::tuple", {-1}},
        {"std::variant", {-1}},
        {"std::chrono::duration", {0}},
    };
    return templates;
}

class CodecReader {
  public:
    CodecReader(ASTContext& ctx, const LocationMapper& where, UdfLibrary& library)
        : ctx_(ctx), where_(where), library_(library), policy_(ctx.getLangOpts()) {
        policy_.SuppressTagKeyword = true;
        policy_.SuppressUnwrittenScope = true;
        policy_.SuppressInlineNamespace = true;
        policy_.FullyQualifiedName = true;
        find_user_codecs();
    }

    // Adds the entry of `type` (a canonical, unqualified type) and of every struct it reaches.
    void add(QualType type) {
        const std::string canonical = canonical_name(type);
        if (index_.count(canonical)) return;
        if (const CXXRecordDecl* record = plain_record(type)) {
            record_entry(*record, type);
            return;
        }
        TypeCodec entry;
        entry.canonical = canonical;
        entry.name = display(type);
        std::vector<std::string> needs;
        Verdict v = verdict(type, needs);
        entry.kind = v.ok ? CodecKind::Builtin : CodecKind::None;
        entry.needs = std::move(needs);
        fill_problem(entry, v);
        store(std::move(entry), type);
    }

    // A struct read while one of its own fields' types was still being read counted that type
    // as having a codec (struct Loop { std::vector<Ring> rings; } inside Ring); when that type
    // turned out to have none, what used it is read again, until nothing changes.
    void settle() {
        for (bool changed = true; changed;) {
            changed = false;
            std::vector<std::size_t> stale;
            for (std::size_t at = 0; at < library_.codecs.size(); ++at) {
                const TypeCodec& entry = library_.codecs[at];
                if (entry.kind != CodecKind::Fields && entry.kind != CodecKind::Builtin) continue;
                for (const std::string& need : entry.needs) {
                    const auto found = index_.find(need);
                    if (found != index_.end() &&
                        library_.codecs[found->second].kind == CodecKind::None) {
                        stale.push_back(at);
                        break;
                    }
                }
            }
            for (std::size_t at : stale) {
                reread(at);
                changed = true;
            }
        }
    }

  private:
    void reread(std::size_t at) {
        const QualType type = types_[at];
        TypeCodec result;
        if (const CXXRecordDecl* record = plain_record(type)) {
            result = read_fields(*record, type);
        } else {
            Verdict v = verdict(type, result.needs);
            result.kind = v.ok ? CodecKind::Builtin : CodecKind::None;
            fill_problem(result, v);
        }
        result.canonical = library_.codecs[at].canonical;
        result.name = library_.codecs[at].name;
        result.user_fields = library_.codecs[at].user_fields;
        library_.codecs[at] = std::move(result);
    }

    std::string canonical_name(QualType type) const {
        return type.getCanonicalType().getUnqualifiedType().getAsString(policy_);
    }
    std::string display(QualType type) const {
        return TypeName::getFullyQualifiedName(type, ctx_, policy_, false);
    }

    static void fill_problem(TypeCodec& entry, const Verdict& v) {
        if (v.ok) return;
        entry.problem_field = v.field;
        entry.problem_type = v.type;
        entry.problem = v.why;
        entry.problem_is_field = v.about_field;
        entry.problem_location = v.location;
    }

    std::size_t store(TypeCodec entry, QualType type) {
        const std::size_t at = library_.codecs.size();
        index_.emplace(entry.canonical, at);
        types_.push_back(type);
        library_.codecs.push_back(std::move(entry));
        return at;
    }

    // The explicit specializations of rop::Codec in the headers (their types have a User codec)
    // and the templates a partial specialization covers (rop::Codec<my::Handle<T>>).
    void find_user_codecs() {
        const DeclContext* rop = nullptr;
        for (const Decl* decl : ctx_.getTranslationUnitDecl()->decls()) {
            const auto* ns = llvm::dyn_cast<NamespaceDecl>(decl);
            if (ns && ns->getName() == "rop") rop = ns->getPrimaryContext();
        }
        if (!rop) return;
        for (const NamedDecl* found : rop->lookup(&ctx_.Idents.get("Fields"))) {
            const auto* fields = llvm::dyn_cast<ClassTemplateDecl>(found);
            if (!fields) continue;
            for (const ClassTemplateSpecializationDecl* spec : fields->specializations()) {
                const TemplateArgumentList& args = spec->getTemplateArgs();
                if (spec->getSpecializationKind() == TSK_ExplicitSpecialization &&
                    args.size() == 1 && args[0].getKind() == TemplateArgument::Type) {
                    user_fields_.insert(canonical_name(args[0].getAsType()));
                }
            }
        }
        for (const NamedDecl* found : rop->lookup(&ctx_.Idents.get("Codec"))) {
            const auto* codec = llvm::dyn_cast<ClassTemplateDecl>(found);
            if (!codec) continue;
            for (const ClassTemplateSpecializationDecl* spec : codec->specializations()) {
                if (spec->getSpecializationKind() != TSK_ExplicitSpecialization) continue;
                const TemplateArgumentList& args = spec->getTemplateArgs();
                if (args.size() == 1 && args[0].getKind() == TemplateArgument::Type) {
                    user_types_.insert(canonical_name(args[0].getAsType()));
                }
            }
            llvm::SmallVector<ClassTemplatePartialSpecializationDecl*, 8> partials;
            codec->getPartialSpecializations(partials);
            for (const ClassTemplatePartialSpecializationDecl* partial : partials) {
                const TemplateArgumentList& args = partial->getTemplateArgs();
                if (args.size() != 1 || args[0].getKind() != TemplateArgument::Type) continue;
                const auto* tst = args[0].getAsType()->getAs<TemplateSpecializationType>();
                const TemplateDecl* tmpl =
                    tst ? tst->getTemplateName().getAsTemplateDecl() : nullptr;
                if (!tmpl) continue;
                const std::string name = plain_qualified_name(*tmpl);
                if (name.rfind("std::", 0) != 0) user_templates_.insert(name);
            }
        }
    }

    // A class ropc may derive a codec for: not a standard type, not a template rop/codec.h
    // encodes, not a lambda.
    static const CXXRecordDecl* plain_record(QualType type) {
        const CXXRecordDecl* record = type.getCanonicalType()->getAsCXXRecordDecl();
        if (!record || record->isLambda()) return nullptr;
        // std::chrono::duration too: any namespace inside std.
        for (const DeclContext* context = record->getDeclContext(); context;
             context = context->getParent()) {
            if (context->isStdNamespace()) return nullptr;
        }
        return record;
    }

    bool has_user_codec(QualType type) const {
        if (user_types_.count(canonical_name(type))) return true;
        const auto* spec = llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            type.getCanonicalType()->getAsCXXRecordDecl());
        return spec && user_templates_.count(plain_qualified_name(*spec->getSpecializedTemplate()));
    }

    Verdict none(QualType type, std::string why = "has no codec") const {
        Verdict v;
        v.ok = false;
        v.type = display(type);
        v.why = std::move(why);
        return v;
    }

    // Whether `type` (a field's, or a container's element) has a codec; the Fields structs its
    // codec uses go to `needs`.
    Verdict verdict(QualType type, std::vector<std::string>& needs) {
        if (type->isReferenceType()) {
            Verdict v = none(type, "is a reference");
            v.about_field = true;
            return v;
        }
        const QualType c = type.getCanonicalType().getUnqualifiedType();
        if (has_user_codec(c)) return {};
        if (c->isEnumeralType() || c->isBooleanType()) return {};
        if (c->isArithmeticType() && !c->isAnyComplexType()) return {};
        if (const CXXRecordDecl* record = plain_record(c)) {
            const TypeCodec& entry = library_.codecs[record_entry(*record, c)];
            if (entry.kind == CodecKind::None) {
                Verdict v;
                v.ok = false;
                v.field = entry.problem_field;
                v.type = entry.problem_type;
                v.why = entry.problem;
                v.about_field = entry.problem_is_field;
                v.location = entry.problem_location;
                if (v.field.empty()) v.type = display(type);
                return v;
            }
            if (entry.kind == CodecKind::Fields) needs.push_back(entry.canonical);
            return {};
        }
        const auto* spec =
            llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(c->getAsCXXRecordDecl());
        if (!spec) {
            const CXXRecordDecl* record = c->getAsCXXRecordDecl();
            if (record && plain_qualified_name(*record) == "std::monostate") return {};
            return none(type);
        }
        const std::string tmpl = plain_qualified_name(*spec->getSpecializedTemplate());
        const TemplateArgumentList& args = spec->getTemplateArgs();
        if (tmpl == "std::basic_string") {
            return canonical_name(c) == "std::basic_string<char>" ? Verdict{} : none(type);
        }
        if (tmpl == "std::shared_ptr") {
            // Only a shared immutable value travels (as its value): std::shared_ptr<const T>.
            const QualType pointee = args[0].getAsType();
            if (!pointee.isConstQualified()) return none(type);
            Verdict inner = verdict(pointee, needs);
            return inner.ok ? inner : element_failure(type, inner);
        }
        const auto found = builtin_templates().find(tmpl);
        if (found == builtin_templates().end()) return none(type);
        std::vector<QualType> elements;
        for (int index : found->second) {
            if (index < 0) {
                for (const TemplateArgument& arg : args.asArray()) {
                    if (arg.getKind() != TemplateArgument::Pack) continue;
                    for (const TemplateArgument& element : arg.pack_elements()) {
                        if (element.getKind() == TemplateArgument::Type)
                            elements.push_back(element.getAsType());
                    }
                }
            } else if (static_cast<unsigned>(index) < args.size() &&
                       args[static_cast<unsigned>(index)].getKind() == TemplateArgument::Type) {
                elements.push_back(args[static_cast<unsigned>(index)].getAsType());
            }
        }
        for (const QualType& element : elements) {
            Verdict inner = verdict(element, needs);
            if (!inner.ok) return element_failure(type, inner);
        }
        return {};
    }

    // How a record source or sink maps a field of this type (std.io's JsonlSource, CsvSource,
    // JsonlSink; rop/records.h): text, numbers, bool, std::optional and std::vector of such, and
    // structs (whose own fields their entries judge). Called only for types that have a codec.
    RecordField record_field(QualType type) const {
        RecordField out;
        const QualType c = type.getCanonicalType().getUnqualifiedType();
        if (c->isBooleanType() ||
            (c->isArithmeticType() && !c->isEnumeralType() && !c->isAnyComplexType())) {
            out.scalar = true;
            return out;
        }
        const auto* spec =
            llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(c->getAsCXXRecordDecl());
        const std::string tmpl = spec ? plain_qualified_name(*spec->getSpecializedTemplate()) : "";
        if (tmpl == "std::basic_string") {
            out.scalar = true;
            return out;
        }
        if (tmpl == "std::optional" || tmpl == "std::vector") {
            const RecordField inner = record_field(spec->getTemplateArgs()[0].getAsType());
            if (inner.problem.empty()) {
                out.scalar = tmpl == "std::optional" && inner.scalar;
                return out;
            }
        } else if (plain_record(c)) {
            return out;  // a struct: its own entry judges its fields
        }
        out.problem = "has type '" + display(type) +
                      "', which a record cannot hold (text, numbers, bool, std::optional, "
                      "std::vector, structs)";
        return out;
    }

    // A container whose element has no codec: a struct element names its own field; anything
    // else is the container's problem.
    Verdict element_failure(QualType container, const Verdict& element) const {
        if (!element.field.empty()) return element;
        return none(container);
    }

    // The entry of a struct (or class) type, made on first sight. Recursive types are fine: a
    // struct being read counts as having its codec.
    std::size_t record_entry(const CXXRecordDecl& decl, QualType type) {
        const std::string canonical = canonical_name(type);
        if (auto it = index_.find(canonical); it != index_.end()) return it->second;
        TypeCodec entry;
        entry.canonical = canonical;
        entry.name = display(type.getCanonicalType().getUnqualifiedType());
        entry.user_fields = user_fields_.count(canonical) > 0;
        if (has_user_codec(type)) {
            entry.kind = CodecKind::User;
            return store(std::move(entry), type);
        }
        entry.kind = CodecKind::Fields;  // while its fields are read
        const std::size_t at = store(std::move(entry), type);
        TypeCodec result = read_fields(decl, type);
        result.canonical = library_.codecs[at].canonical;
        result.name = library_.codecs[at].name;
        result.user_fields = library_.codecs[at].user_fields;
        library_.codecs[at] = std::move(result);
        return at;
    }

    TypeCodec read_fields(const CXXRecordDecl& decl, QualType type) {
        TypeCodec out;
        out.kind = CodecKind::None;
        const CXXRecordDecl* def = decl.getDefinition();
        if (!def) {
            fill_problem(out, none(type, "is declared but not defined"));
            return out;
        }
        if (def->isInAnonymousNamespace()) {
            fill_problem(
                out, none(type, "is in an anonymous namespace (generated code cannot name it)"));
            return out;
        }
        if (def->isUnion()) {
            fill_problem(out, none(type, "is a union"));
            return out;
        }
        if (def->isAbstract()) {
            fill_problem(out, none(type, "is abstract"));
            return out;
        }
        for (const CXXBaseSpecifier& base : def->bases()) {
            const CXXRecordDecl* base_decl = base.getType()->getAsCXXRecordDecl();
            if (base_decl && base_decl->hasDefinition() && base_decl->isEmpty()) continue;
            Verdict v = none(type, "has a base class '" + display(base.getType()) +
                                       "' (a generated codec reads only its own fields)");
            fill_problem(out, v);
            return out;
        }
        if (!def->hasDefaultConstructor()) {
            fill_problem(out, none(type, "has no default constructor"));
            return out;
        }
        for (const FieldDecl* field : def->fields()) {
            const std::string name = field->getName().str();
            const QualType field_type = field->getType();
            Verdict v;
            if (name.empty()) {
                v = none(field_type, "is an anonymous struct or union");
                v.about_field = true;
            } else if (field->getAccess() != AS_public) {
                v = none(field_type,
                         field->getAccess() == AS_private ? "is private" : "is protected");
                v.about_field = true;
            } else if (field_type.isConstQualified()) {
                v = none(field_type, "is const");
                v.about_field = true;
            } else {
                v = verdict(field_type, out.needs);
            }
            if (!v.ok) {
                v.field = v.field.empty() ? name : name + "." + v.field;
                if (!v.location.valid()) v.location = where_(field->getLocation());
                fill_problem(out, v);
                out.fields.clear();
                out.needs.clear();
                out.record_fields.clear();
                return out;
            }
            out.fields.push_back(name);
            RecordField record = record_field(field_type);
            record.location = where_(field->getLocation());
            out.record_fields.push_back(std::move(record));
        }
        out.kind = CodecKind::Fields;
        return out;
    }

    ASTContext& ctx_;
    const LocationMapper& where_;
    UdfLibrary& library_;
    PrintingPolicy policy_;
    std::map<std::string, std::size_t> index_;  // canonical name -> library_.codecs
    std::vector<QualType> types_;               // the type of each entry, same index
    std::set<std::string> user_types_;
    std::set<std::string> user_templates_;
    std::set<std::string> user_fields_;  // the types the headers specialize rop::Fields for
};

}  // namespace

void read_codecs(clang::ASTContext& ctx, const std::vector<const clang::Type*>& types,
                 const LocationMapper& where, UdfLibrary& library) {
    CodecReader reader(ctx, where, library);
    for (const clang::Type* type : types) reader.add(clang::QualType(type, 0));
    reader.settle();
}

}  // namespace rop::bind::detail
