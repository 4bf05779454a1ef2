// DeclCollector: walks the parsed headers for UDFs (functions, classes with an operator()) and
// types, and turns Clang's types into CxxType values. Compiled in one unity translation unit with
// udf_reader.cpp and nondeterminism_lint.cpp (see CMakeLists.txt), so names here are distinct.
// GCC's flow-sensitive -Wnull-dereference fires inside inlined Clang header code
// (RecursiveASTVisitor, CXXRecordDecl); SYSTEM includes cannot silence it there.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wnonnull"
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Lexer.h>
#include <clang/Sema/Sema.h>

#include <map>
#include <memory>
#include <set>
#include <utility>

#include "bind/clang_bridge.h"

namespace rop::bind::detail {
namespace {

using namespace clang;

// ---- types ------------------------------------------------------------------------------

class TypeReader {
  public:
    explicit TypeReader(ASTContext& ctx) : ctx_(ctx), policy_(ctx.getLangOpts()) {
        policy_.SuppressTagKeyword = true;
        policy_.SuppressUnwrittenScope = true;
        policy_.SuppressInlineNamespace = true;
        policy_.FullyQualifiedName = true;
    }

    CxxType read(QualType type) const {
        CxxType out;
        out.spelling = type.getAsString(policy_);
        if (type->isLValueReferenceType()) out.ref = RefKind::LValue;
        if (type->isRValueReferenceType()) out.ref = RefKind::RValue;
        QualType value = type.getNonReferenceType();
        out.is_const = value.isConstQualified();
        value = value.getUnqualifiedType();
        QualType canonical = value.getCanonicalType().getUnqualifiedType();
        if (item_types_ && !canonical->isVoidType()) item_types_->push_back(canonical.getTypePtr());
        out.name = TypeName::getFullyQualifiedName(value, ctx_, policy_, false);
        out.canonical = canonical.getAsString(policy_);

        if (is_ordinals_alias(value)) {
            out.form = TypeForm::Ordinals;
        } else if (canonical->isVoidType()) {
            out.form = TypeForm::Void;
        } else if (canonical->isBooleanType()) {
            out.form = TypeForm::Bool;
        } else if (canonical->isPointerType()) {
            out.form = TypeForm::Pointer;
            out.args.push_back(read(value->getPointeeType()));
        } else if (const auto* spec = specialization(canonical)) {
            std::string tmpl = plain_qualified_name(*spec->getSpecializedTemplate());
            out.form = form_of_template(tmpl);
            if (out.form != TypeForm::Value) out.args = template_args(value, *spec);
            // A span of rop::SkippedChild is rop::Skipped however it is spelt.
            if (out.form == TypeForm::Span && !out.args.empty() &&
                out.args[0].canonical == "rop::SkippedChild") {
                out.form = TypeForm::Skipped;
            }
        }
        return out;
    }

    ArgKind arg_kind(QualType type) const {
        QualType c = type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
        if (c->isBooleanType()) return ArgKind::Bool;
        if (c->isEnumeralType()) return ArgKind::Enum;
        if (c->isIntegerType()) return ArgKind::Integer;
        if (c->isRealFloatingType()) return ArgKind::Float;
        if (c->isPointerType()) {
            QualType pointee = c->getPointeeType();
            return pointee.isConstQualified() && pointee->isCharType() ? ArgKind::String
                                                                       : ArgKind::Other;
        }
        if (const auto* spec = specialization(c)) {
            std::string tmpl = plain_qualified_name(*spec->getSpecializedTemplate());
            if (tmpl == "std::basic_string" || tmpl == "std::basic_string_view") {
                return ArgKind::String;
            }
            if (tmpl == "std::chrono::duration") return ArgKind::Duration;
            if (tmpl == "std::vector") return ArgKind::List;
        }
        return ArgKind::Other;
    }

    static std::vector<std::string> enumerators(QualType type) {
        std::vector<std::string> names;
        QualType c = type.getNonReferenceType().getCanonicalType();
        if (const auto* enum_type = c->getAs<EnumType>()) {
            for (const EnumConstantDecl* e : enum_type->getDecl()->enumerators()) {
                names.push_back(e->getName().str());
            }
        }
        return names;
    }

    std::string canonical_name(QualType type) const {
        return type.getCanonicalType().getUnqualifiedType().getAsString(policy_);
    }

    // Every type read goes here (when set), for read_codecs: an item type is one of them.
    void collect_types(std::vector<const Type*>* types) { item_types_ = types; }

  private:
    static const ClassTemplateSpecializationDecl* specialization(QualType canonical) {
        return llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            canonical->getAsCXXRecordDecl());
    }

    static TypeForm form_of_template(const std::string& name) {
        if (name == "std::vector") return TypeForm::Vector;
        if (name == "std::span") return TypeForm::Span;
        if (name == "std::optional") return TypeForm::Optional;
        if (name == "std::tuple") return TypeForm::Tuple;
        if (name == "rop::Emitter") return TypeForm::Emitter;
        if (name == "rop::Parent") return TypeForm::Parent;
        if (name == "rop::ItemResult") return TypeForm::ItemResult;
        return TypeForm::Value;
    }

    // rop::Ordinals is an alias of std::span<const std::uint32_t>; only the alias says "these
    // are ordinals", so look through the sugar for it.
    bool is_ordinals_alias(QualType type) const {
        for (int step = 0; step < 16; ++step) {
            if (const auto* typedef_type = llvm::dyn_cast<TypedefType>(type.getTypePtr())) {
                if (plain_qualified_name(*typedef_type->getDecl()) == "rop::Ordinals") {
                    return true;
                }
            }
            QualType next = type.getSingleStepDesugaredType(ctx_);
            if (next == type) return false;
            type = next;
        }
        return false;
    }

    // Element types as written when the type is spelt as a template-id (keeps `Page` rather
    // than a canonical spelling), else from the canonical specialization.
    std::vector<CxxType> template_args(QualType value,
                                       const ClassTemplateSpecializationDecl& spec) const {
        std::vector<CxxType> args;
        const auto* written = value->getAs<TemplateSpecializationType>();
        while (written && written->isTypeAlias()) {
            written = written->getAliasedType()->getAs<TemplateSpecializationType>();
        }
        if (written) {
            const TemplateDecl* tmpl = written->getTemplateName().getAsTemplateDecl();
            if (tmpl &&
                tmpl->getCanonicalDecl() == spec.getSpecializedTemplate()->getCanonicalDecl()) {
                for (const TemplateArgument& arg : written->template_arguments()) {
                    if (arg.getKind() == TemplateArgument::Type)
                        args.push_back(read(arg.getAsType()));
                }
                if (!args.empty()) return args;
            }
        }
        for (const TemplateArgument& arg : spec.getTemplateArgs().asArray()) {
            if (arg.getKind() == TemplateArgument::Type) args.push_back(read(arg.getAsType()));
            if (arg.getKind() == TemplateArgument::Pack) {
                for (const TemplateArgument& element : arg.pack_elements()) {
                    if (element.getKind() == TemplateArgument::Type) {
                        args.push_back(read(element.getAsType()));
                    }
                }
            }
        }
        return args;
    }

    ASTContext& ctx_;
    PrintingPolicy policy_;
    std::vector<const Type*>* item_types_ = nullptr;
};

class DeclCollector : public ASTConsumer {
  public:
    DeclCollector(CompilerInstance& ci, const HeaderNames& headers, bool lint, UdfLibrary& library)
        : ci_(ci), headers_(headers), lint_(lint), library_(library) {}

    // Sema asks this for every function body it could skip (FrontendOptions::SkipFunctionBodies
    // is on). Standard-library bodies are most of the parse and never needed.
    bool shouldSkipFunctionBody(Decl* decl) override {
        if (!lint_) return true;
        return ci_.getSourceManager().isInSystemHeader(decl->getLocation());
    }

    void HandleTranslationUnit(ASTContext& ctx) override {
        ctx_ = &ctx;
        TypeReader types(ctx);
        std::vector<const Type*> read;
        types.collect_types(&read);
        types_ = &types;
        walk(*ctx.getTranslationUnitDecl());
        types_ = nullptr;
        read_codecs(ctx, read, [this](SourceLocation loc) { return where(loc); }, library_);
    }

  private:
    SourceLoc where(SourceLocation loc) const {
        return map_location(ci_.getSourceManager(), headers_, loc);
    }

    // True when `decl` is written directly in one of the headers read.
    bool in_read_header(const Decl& decl) {
        const SourceManager& sm = ci_.getSourceManager();
        FileID file = sm.getFileID(sm.getExpansionLoc(decl.getLocation()));
        auto cached = file_cache_.find(file);
        if (cached != file_cache_.end()) return cached->second;
        bool listed = false;
        if (OptionalFileEntryRef entry = sm.getFileEntryRefForID(file)) {
            listed = headers_.count(entry->getUniqueID()) != 0;
        }
        file_cache_.emplace(file, listed);
        return listed;
    }

    void walk(const DeclContext& context) {
        const SourceManager& sm = ci_.getSourceManager();
        for (const Decl* decl : context.decls()) {
            if (const auto* ns = llvm::dyn_cast<NamespaceDecl>(decl)) {
                if (!sm.isInSystemHeader(ns->getLocation())) walk(*ns);
                continue;
            }
            if (const auto* linkage = llvm::dyn_cast<LinkageSpecDecl>(decl)) {
                walk(*linkage);
                continue;
            }
            if (decl->isImplicit() || !in_read_header(*decl)) continue;
            if (const auto* function = llvm::dyn_cast<FunctionDecl>(decl)) {
                add_function(*function);
            } else if (const auto* record = llvm::dyn_cast<CXXRecordDecl>(decl)) {
                add_record(*record);
            } else if (const auto* type = llvm::dyn_cast<TypedefNameDecl>(decl)) {
                add_type(*type, type->getUnderlyingType());
                add_alias_class(*type);
            } else if (const auto* enumeration = llvm::dyn_cast<EnumDecl>(decl)) {
                add_type(*enumeration, ctx_->getTypeDeclType(enumeration));
            }
        }
    }

    void add_type(const NamedDecl& decl, QualType type) {
        if (decl.getName().empty()) return;
        std::string name = plain_qualified_name(decl);
        for (const UdfType& known : library_.types) {
            if (known.qualified_name == name) return;  // a redeclaration
        }
        library_.types.push_back({name, types_->canonical_name(type), where(decl.getLocation())});
    }

    std::vector<UdfParam> read_params(const FunctionDecl& function) const {
        std::vector<UdfParam> params;
        for (const ParmVarDecl* param : function.parameters()) {
            UdfParam out;
            out.name = param->getName().str();
            out.type = types_->read(param->getType());
            out.arg_kind = types_->arg_kind(param->getType());
            if (out.arg_kind == ArgKind::Enum)
                out.enumerators = TypeReader::enumerators(param->getType());
            out.location = where(out.name.empty() ? param->getBeginLoc() : param->getLocation());
            // (A default of a class template's member, as an alias's class has, stays
            // uninstantiated until a call needs it; it is a default all the same.)
            if (param->hasDefaultArg() && !param->hasUnparsedDefaultArg()) {
                out.has_default = true;
                out.default_text = Lexer::getSourceText(
                                       CharSourceRange::getTokenRange(param->getDefaultArgRange()),
                                       ci_.getSourceManager(), ctx_->getLangOpts())
                                       .str();
            }
            params.push_back(std::move(out));
        }
        return params;
    }

    void read_signature(const FunctionDecl& function, UdfDecl& out) const {
        out.params = read_params(function);
        out.result = types_->read(function.getReturnType());
        SourceLocation result_loc = function.getReturnTypeSourceRange().getBegin();
        out.result_location = where(result_loc.isValid() ? result_loc : function.getLocation());
    }

    static const FunctionDecl* body_of(const FunctionDecl& function) {
        const FunctionDecl* definition = function.getDefinition();
        if (!definition || !definition->doesThisDeclarationHaveABody()) return nullptr;
        return definition->hasSkippedBody() ? nullptr : definition;
    }

    void lint(const Decl& decl, UdfDecl& out) const {
        if (!lint_ || !out.has_body) return;
        out.nondeterminism = lint_nondeterminism(decl, out.qualified_name,
                                                 [this](SourceLocation loc) { return where(loc); });
    }

    void add_function(const FunctionDecl& function) {
        // Methods defined out of line, templates and their specializations are not UDFs.
        if (llvm::isa<CXXMethodDecl>(function) || function.isDeleted() ||
            function.getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
            function.isOverloadedOperator()) {
            return;
        }
        if (!seen_.insert(function.getCanonicalDecl()).second) return;  // a redeclaration
        UdfDecl out;
        out.qualified_name = plain_qualified_name(function);
        out.name = function.getName().str();
        out.location = where(function.getLocation());
        read_signature(function, out);
        const FunctionDecl* body = body_of(function);
        out.has_body = body != nullptr;
        if (body) lint(*body, out);
        library_.decls.push_back(std::move(out));
    }

    void add_record(const CXXRecordDecl& record) {
        // A rop::Codec<T> specialization is neither a type a `.rop` file names nor a UDF.
        if (!record.isThisDeclarationADefinition() || record.getName().empty() ||
            record.getDescribedClassTemplate() != nullptr ||
            llvm::isa<ClassTemplateSpecializationDecl>(record)) {
            return;
        }
        add_type(record, ctx_->getRecordType(&record));
        add_class(record, plain_qualified_name(record), record.getName().str(),
                  where(record.getLocation()));
    }

    // The class templates of std.io's record sources and sinks (rop/stdlib/io.h), whose type
    // argument is the record type ropc writes a rop::Fields table for.
    static bool is_record_template(const std::string& name, bool& csv) {
        csv = name == "rop::stdlib::io::CsvSource" || name == "rop::stdlib::io::CsvSink";
        return csv || name == "rop::stdlib::io::JsonlSource" ||
               name == "rop::stdlib::io::JsonlSink";
    }

    // `using OrderRows = rop::stdlib::io::JsonlSource<Order>;` names a class like one written
    // out: a UDF, source or sink class under the alias's name. An alias alone does not
    // instantiate its class, so this does (member declarations only), for class templates
    // outside system headers that declare an operator(), next() or write().
    void add_alias_class(const TypedefNameDecl& alias) {
        const QualType type = alias.getUnderlyingType();
        if (type->isDependentType() || !ci_.hasSema()) return;
        const auto* spec = llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            type.getCanonicalType()->getAsCXXRecordDecl());
        if (!spec || spec->isInStdNamespace()) return;
        const ClassTemplateDecl* tmpl = spec->getSpecializedTemplate();
        const SourceManager& sm = ci_.getSourceManager();
        if (sm.isInSystemHeader(tmpl->getLocation())) return;
        bool callable = false;
        for (const Decl* member : tmpl->getTemplatedDecl()->decls()) {
            const auto* method = llvm::dyn_cast<CXXMethodDecl>(member);
            if (const auto* ft = llvm::dyn_cast<FunctionTemplateDecl>(member)) {
                method = llvm::dyn_cast<CXXMethodDecl>(ft->getTemplatedDecl());
            }
            if (!method) continue;
            if (method->getOverloadedOperator() == OO_Call ||
                (method->getIdentifier() &&
                 (method->getName() == "next" || method->getName() == "write"))) {
                callable = true;
            }
        }
        if (!callable) return;
        if (!ci_.getSema().isCompleteType(alias.getLocation(), type)) return;
        const CXXRecordDecl* definition = spec->getDefinition();
        if (!definition) return;
        UdfDecl* added = add_class(*definition, plain_qualified_name(alias), alias.getName().str(),
                                   where(alias.getLocation()));
        if (added) added->template_location = where(tmpl->getLocation());
        bool csv = false;
        const TemplateArgumentList& args = spec->getTemplateArgs();
        if (added && is_record_template(plain_qualified_name(*tmpl), csv) && args.size() == 1 &&
            args[0].getKind() == TemplateArgument::Type) {
            added->record_type = types_->read(args[0].getAsType());
            added->record_csv = csv;
        }
    }

    // A class with an operator(), next() or write(): a UDF, source or sink class named `name`;
    // null (nothing added) for any other class.
    UdfDecl* add_class(const CXXRecordDecl& record, std::string qualified_name, std::string name,
                       SourceLoc location) {
        std::vector<const CXXMethodDecl*> call_operators;
        UdfDecl out;
        for (const CXXMethodDecl* method : record.methods()) {
            if (method->getAccess() != AS_public || method->isDeleted()) continue;
            if (method->getOverloadedOperator() == OO_Call) {
                call_operators.push_back(method);
            } else if (!method->isStatic() && !method->isImplicit() && method->getIdentifier()) {
                UdfMethod read = read_method(*method);
                if (read.name == "next") out.next_methods.push_back(read);
                if (read.name == "write") out.write_methods.push_back(read);
                out.methods.push_back(std::move(read));
            }
        }
        if (record.isAbstract()) return nullptr;
        // A type, not a UDF: no operator(), and no next()/write() that a source or sink needs.
        // With methods of its own it may still be a pool's class (`pool vlm = ns.Model()`),
        // which UdfLibrary::find_class finds among pool_classes.
        const bool pool_class_only =
            call_operators.empty() && out.next_methods.empty() && out.write_methods.empty();
        if (pool_class_only && out.methods.empty()) return nullptr;

        out.is_class = true;
        out.qualified_name = std::move(qualified_name);
        out.name = std::move(name);
        out.location = location;
        out.call_operator_count = call_operators.size();
        if (!call_operators.empty()) read_signature(*call_operators.front(), out);
        for (const CXXConstructorDecl* ctor : record.ctors()) {
            if (ctor->isImplicit() || ctor->isCopyOrMoveConstructor() || ctor->isDeleted() ||
                ctor->getAccess() != AS_public) {
                continue;
            }
            if (out.constructor_count++ == 0) out.ctor_params = read_params(*ctor);
        }
        for (const CXXMethodDecl* method : call_operators) {
            if (body_of(*method)) out.has_body = true;
        }
        // A pool's class: its methods are its UDFs, so the lint reads them when one has a body.
        for (const CXXMethodDecl* method : record.methods()) {
            if (!pool_class_only || method->isStatic() || !body_of(*method)) continue;
            if (method->getIdentifier() && method->getAccess() == AS_public) out.has_body = true;
        }
        lint(record, out);
        if (pool_class_only) {
            library_.pool_classes.push_back(std::move(out));
            return nullptr;
        }
        library_.decls.push_back(std::move(out));
        return &library_.decls.back();
    }

    UdfMethod read_method(const CXXMethodDecl& method) const {
        UdfMethod read;
        read.name = method.getName().str();
        read.params = read_params(method);
        read.result = types_->read(method.getReturnType());
        read.location = where(method.getLocation());
        SourceLocation result_loc = method.getReturnTypeSourceRange().getBegin();
        read.result_location = where(result_loc.isValid() ? result_loc : method.getLocation());
        return read;
    }

    CompilerInstance& ci_;
    const HeaderNames& headers_;
    bool lint_;
    UdfLibrary& library_;
    ASTContext* ctx_ = nullptr;
    const TypeReader* types_ = nullptr;
    std::map<FileID, bool> file_cache_;
    std::set<const Decl*> seen_;
};

}  // namespace

std::unique_ptr<clang::ASTConsumer> make_decl_collector(clang::CompilerInstance& ci,
                                                        const HeaderNames& headers, bool lint,
                                                        UdfLibrary& library) {
    return std::make_unique<DeclCollector>(ci, headers, lint, library);
}

std::string plain_qualified_name(const clang::NamedDecl& decl) {
    std::vector<std::string> scopes;
    for (const clang::DeclContext* context = decl.getDeclContext(); context;
         context = context->getParent()) {
        if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(context)) {
            if (ns->isInline() || ns->isAnonymousNamespace()) continue;
            scopes.push_back(ns->getName().str());
        } else if (const auto* record = llvm::dyn_cast<clang::RecordDecl>(context)) {
            scopes.push_back(record->getName().str());
        }
    }
    std::string out;
    for (auto scope = scopes.rbegin(); scope != scopes.rend(); ++scope) out += *scope + "::";
    return out + decl.getNameAsString();
}

}  // namespace rop::bind::detail
