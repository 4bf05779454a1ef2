// fingerprint_udfs: one Clang -fsyntax-only run over each .cpp the build compiles and one over
// the `use` headers none of them includes, each indexing the definitions in the project's files
// (not system headers, not rop's own): a token hash per function, class and namespace-scope
// variable, and what each reaches. A UDF's fingerprint is the closure over that index, across
// files.
//
// Tokens, not text: the raw lexer drops comments and whitespace, so reformatting changes no
// hash, while every identifier counts (a renamed local variable is a change; nothing cheaper
// tells a rename from an edit that matters). What the index cannot follow — a call through a
// function pointer or std::function, a virtual call into the project's classes, a function
// declared in the project that no file compiled with it defines — makes the fingerprint hash
// every project file of the translation units involved as well, and say so (`fallback`).
// GCC's flow-sensitive -Wnull-dereference fires inside inlined Clang header code
// (RecursiveASTVisitor, CXXRecordDecl); SYSTEM includes cannot silence it there.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wnonnull"
#include "bind/code_fingerprint.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "bind/clang_bridge.h"

#ifndef ROP_CLANG_RESOURCE_DIR
#define ROP_CLANG_RESOURCE_DIR ""
#endif

namespace rop::bind {
namespace fingerprint {
namespace {

using namespace clang;
// Clang's, not rop's own (support/source_manager.h) of the same names.
using clang::SourceLocation;
using clang::SourceManager;
using clang::SourceRange;
using detail::plain_qualified_name;
namespace fs = std::filesystem;

constexpr const char* kHeadersFile = "/rop-fingerprint/use-headers.cpp";

std::string hex128(std::string_view bytes) {
    const llvm::XXH128_hash_t h = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(bytes));
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return out;
}

// One definition in the project's files: a function, a class, or a namespace-scope variable.
struct Entry {
    std::string name;      // "wordcount::count_words"
    std::string location;  // "udfs/wordcount.cpp:12"
    std::string hash;
    std::size_t tu = 0;                   // the translation unit it was first read in
    std::set<std::string> uses;           // keys of what it reaches in the project's files
    std::vector<std::string> unresolved;  // what it reaches that cannot be followed, and where
};

struct Index {
    std::map<std::string, Entry> entries;         // by key
    std::map<std::string, std::string> declared;  // key -> "name (declared at loc)"
    std::vector<std::string> tu_hashes;           // every project file's tokens, per TU
    std::vector<std::string> tu_names;            // the file each TU was read for
    std::set<std::string> files_read;             // every project file a TU read, absolute
    std::vector<std::string> errors;              // TUs Clang could not read
};

class Reader {
  public:
    Reader(ASTContext& ctx, const FingerprintRequest& request, std::size_t tu, Index& index)
        : ctx_(ctx), sm_(ctx.getSourceManager()), request_(request), tu_(tu), index_(index) {}

    // Whether `loc` is in one of the project's files (not a system header, not rop's headers,
    // not the generated main file).
    bool in_project(SourceLocation loc) {
        if (loc.isInvalid()) return false;
        loc = sm_.getExpansionLoc(loc);
        const FileID file = sm_.getFileID(loc);
        auto known = project_files_.find(file.getHashValue());
        if (known != project_files_.end()) return known->second;
        bool project = !sm_.isInSystemHeader(loc);
        const std::string path = path_of(file);
        if (path.empty() || path.starts_with("/rop-fingerprint/")) project = false;
        for (const std::string& dir : request_.library_dirs) {
            project = project && !path.starts_with(dir);
        }
        project_files_.emplace(file.getHashValue(), project);
        return project;
    }

    std::string path_of(FileID file) const {
        OptionalFileEntryRef entry = sm_.getFileEntryRefForID(file);
        if (!entry) return {};
        std::error_code ec;
        const fs::path path = fs::weakly_canonical(fs::path(entry->getName().str()), ec);
        return ec ? entry->getName().str() : path.string();
    }

    // Relative to the `.rop` file's folder: what the plan shows, and what a fallback hashes
    // (so that the same project in another folder has the same digests).
    std::string shown_path(FileID file) const {
        const std::string path = path_of(file);
        if (request_.base_dir.empty()) return path;
        const fs::path relative = fs::path(path).lexically_relative(request_.base_dir);
        return relative.empty() ? path : relative.string();
    }

    std::string location(SourceLocation loc) const {
        loc = sm_.getExpansionLoc(loc);
        return shown_path(sm_.getFileID(loc)) + ":" +
               std::to_string(sm_.getExpansionLineNumber(loc));
    }

    // The raw tokens of `range`, one per line: comments and whitespace are not tokens.
    std::string tokens(SourceRange range) const {
        const SourceLocation begin = sm_.getExpansionLoc(range.getBegin());
        const SourceLocation end = sm_.getExpansionRange(range.getEnd()).getEnd();
        const FileID file = sm_.getFileID(begin);
        if (file != sm_.getFileID(end)) return {};
        const unsigned end_offset = sm_.getFileOffset(end);
        std::optional<StringRef> buffer = sm_.getBufferDataOrNone(file);
        if (!buffer) return {};
        Lexer lexer(sm_.getLocForStartOfFile(file), ctx_.getLangOpts(), buffer->begin(),
                    buffer->begin() + sm_.getFileOffset(begin), buffer->end());
        std::string out;
        Token token;
        while (!lexer.LexFromRawLexer(token)) {
            if (sm_.getFileOffset(token.getLocation()) > end_offset) break;
            out.append(buffer->data() + sm_.getFileOffset(token.getLocation()), token.getLength());
            out += '\n';
        }
        return out;
    }

    // Every project file of this translation unit, by path: what a fallback hashes.
    std::string all_project_tokens() {
        std::map<std::string, std::string> files;
        for (auto it = sm_.fileinfo_begin(); it != sm_.fileinfo_end(); ++it) {
            const FileID file = sm_.translateFile(it->first);
            if (file.isInvalid() || !in_project(sm_.getLocForStartOfFile(file))) continue;
            std::optional<StringRef> buffer = sm_.getBufferDataOrNone(file);
            if (!buffer) continue;
            const SourceLocation start = sm_.getLocForStartOfFile(file);
            index_.files_read.insert(path_of(file));
            files[shown_path(file)] =
                tokens(SourceRange(start, start.getLocWithOffset(buffer->size())));
        }
        std::string all;
        for (const auto& [path, text] : files) all += path + "\n" + hex128(text) + "\n";
        return hex128(all);
    }

    const FunctionDecl& pattern(const FunctionDecl& function) const {
        if (const FunctionDecl* p = function.getTemplateInstantiationPattern()) return *p;
        return function;
    }

    std::string key(const FunctionDecl& function) {
        const FunctionDecl& f = pattern(function);
        std::string out = plain_qualified_name(f) + "(";
        for (const ParmVarDecl* param : f.parameters()) {
            out += param->getType().getCanonicalType().getAsString() + ",";
        }
        out += ")";
        if (const auto* method = llvm::dyn_cast<CXXMethodDecl>(&f); method && method->isConst()) {
            out += " const";
        }
        // Internal linkage: only this file's own callers see it.
        if (!f.isExternallyVisible()) out = request_tu_name() + "#" + out;
        return out;
    }
    std::string key(const CXXRecordDecl& record) const {
        return "class " + plain_qualified_name(record);
    }
    std::string key(const VarDecl& var) {
        std::string out = "var " + plain_qualified_name(var);
        if (!var.isExternallyVisible()) out = request_tu_name() + "#" + out;
        return out;
    }

    std::string request_tu_name() const { return index_.tu_names[tu_]; }

    // A new entry for a definition (the first translation unit that reads it keeps it).
    Entry* add(const std::string& key, const NamedDecl& decl, SourceRange range) {
        auto [it, added] = index_.entries.try_emplace(key);
        if (!added) return nullptr;
        Entry& entry = it->second;
        entry.name = plain_qualified_name(decl);
        entry.location = location(decl.getLocation());
        entry.hash = hex128(tokens(range));
        entry.tu = tu_;
        return &entry;
    }

    void declared(const std::string& key, const NamedDecl& decl) {
        index_.declared.try_emplace(key, plain_qualified_name(decl) + " (declared at " +
                                             location(decl.getLocation()) + ")");
    }

    ASTContext& ctx_;
    const SourceManager& sm_;
    const FingerprintRequest& request_;
    std::size_t tu_;
    Index& index_;
    std::unordered_map<unsigned, bool> project_files_;
};

// What one definition reaches: calls, constructions, functions and variables it names.
class UseCollector : public RecursiveASTVisitor<UseCollector> {
  public:
    UseCollector(Reader& reader, Entry& entry) : reader_(reader), entry_(entry) {}

    bool VisitCallExpr(CallExpr* call) {
        if (const FunctionDecl* callee = call->getDirectCallee()) {
            const auto* method = llvm::dyn_cast<CXXMethodDecl>(callee);
            if (method && method->getOverloadedOperator() == OO_Call &&
                plain_qualified_name(*method->getParent()) == "std::function") {
                unresolved("a call through std::function", call->getBeginLoc());
            }
            use(*callee);
            return true;
        }
        const Expr* callee = call->getCallee()->IgnoreParenImpCasts();
        if (call->isTypeDependent() || callee->isTypeDependent()) {
            if (const auto* lookup = llvm::dyn_cast<OverloadExpr>(callee)) {
                for (const NamedDecl* decl : lookup->decls()) {
                    if (const auto* f = llvm::dyn_cast<FunctionDecl>(decl->getUnderlyingDecl())) {
                        use(*f);
                    } else if (const auto* t = llvm::dyn_cast<FunctionTemplateDecl>(
                                   decl->getUnderlyingDecl())) {
                        use(*t->getTemplatedDecl());
                    }
                }
            }
            return true;  // resolved per instantiation; the template's own tokens are hashed
        }
        if (llvm::isa<CXXPseudoDestructorExpr>(callee)) return true;
        unresolved("a call through a function pointer (" +
                       call->getCallee()->getType().getAsString() + ")",
                   call->getBeginLoc());
        return true;
    }

    bool VisitCXXMemberCallExpr(CXXMemberCallExpr* call) {
        const CXXMethodDecl* method = call->getMethodDecl();
        if (!method || !method->isVirtual()) return true;
        const auto* member = llvm::dyn_cast<MemberExpr>(call->getCallee()->IgnoreParens());
        if (member && member->hasQualifier()) return true;  // Base::f(): not a virtual call
        if (method->hasAttr<FinalAttr>() || method->getParent()->hasAttr<FinalAttr>()) return true;
        if (!reader_.in_project(method->getLocation())) return true;  // a library's class
        unresolved("a virtual call to " + plain_qualified_name(*method), call->getBeginLoc());
        return true;
    }

    bool VisitCXXConstructExpr(CXXConstructExpr* construct) {
        const CXXConstructorDecl* ctor = construct->getConstructor();
        use(*ctor);
        use_record(*ctor->getParent());
        return true;
    }

    bool VisitDeclRefExpr(DeclRefExpr* ref) {
        const ValueDecl* decl = ref->getDecl();
        if (const auto* f = llvm::dyn_cast<FunctionDecl>(decl)) {
            use(*f);
        } else if (const auto* var = llvm::dyn_cast<VarDecl>(decl)) {
            if (var->hasGlobalStorage() && !var->isStaticLocal() &&
                reader_.in_project(var->getLocation())) {
                const VarDecl* definition = var->getDefinition();
                const std::string key = reader_.key(definition ? *definition : *var);
                entry_.uses.insert(key);
                reader_.declared(key, *var);
            }
        }
        return true;
    }

  private:
    void use(const FunctionDecl& function) {
        const FunctionDecl& f = reader_.pattern(function);
        if (f.isImplicit() || !reader_.in_project(f.getLocation())) return;
        if (const auto* method = llvm::dyn_cast<CXXMethodDecl>(&f)) {
            if (method->getParent()->isLambda()) return;  // hashed where it is written
        }
        const std::string key = reader_.key(f);
        entry_.uses.insert(key);
        reader_.declared(key, f);
    }

    void use_record(const CXXRecordDecl& record) {
        if (record.isLambda() || !reader_.in_project(record.getLocation())) return;
        const CXXRecordDecl* definition = record.getDefinition();
        if (!definition) return;
        entry_.uses.insert(reader_.key(*definition));
    }

    void unresolved(const std::string& what, SourceLocation loc) {
        entry_.unresolved.push_back(what + " at " + reader_.location(loc));
    }

    Reader& reader_;
    Entry& entry_;
};

// Indexes every definition in the project's files.
class DefinitionWalker : public RecursiveASTVisitor<DefinitionWalker> {
  public:
    explicit DefinitionWalker(Reader& reader) : reader_(reader) {}

    bool VisitFunctionDecl(FunctionDecl* function) {
        if (!function->doesThisDeclarationHaveABody() || function->isImplicit()) return true;
        if (const auto* method = llvm::dyn_cast<CXXMethodDecl>(function)) {
            if (method->getParent()->isLambda()) return true;
        }
        if (!reader_.in_project(function->getLocation())) return true;
        if (Entry* entry =
                reader_.add(reader_.key(*function), *function, function->getSourceRange())) {
            UseCollector uses(reader_, *entry);
            uses.TraverseDecl(function);
        }
        return true;
    }

    bool VisitCXXRecordDecl(CXXRecordDecl* record) {
        if (!record->isThisDeclarationADefinition() || record->isLambda() ||
            record->isInjectedClassName() || !reader_.in_project(record->getLocation())) {
            return true;
        }
        Entry* entry = reader_.add(reader_.key(*record), *record, record->getSourceRange());
        if (!entry) return true;
        // Its methods (defined in the class or elsewhere) and its fields' initializers.
        for (const CXXMethodDecl* method : record->methods()) {
            if (method->isImplicit()) continue;
            const std::string key = reader_.key(*method);
            entry->uses.insert(key);
            reader_.declared(key, *method);
        }
        UseCollector uses(reader_, *entry);
        for (FieldDecl* field : record->fields()) {
            if (Expr* init = field->getInClassInitializer()) uses.TraverseStmt(init);
        }
        return true;
    }

    bool VisitVarDecl(VarDecl* var) {
        if (!var->hasGlobalStorage() || var->isStaticLocal() || llvm::isa<ParmVarDecl>(var) ||
            var->getDefinition() != var || !reader_.in_project(var->getLocation())) {
            return true;
        }
        if (Entry* entry = reader_.add(reader_.key(*var), *var, var->getSourceRange())) {
            if (Expr* init = var->getInit()) {
                UseCollector uses(reader_, *entry);
                uses.TraverseStmt(init);
            }
        }
        return true;
    }

  private:
    Reader& reader_;
};

class IndexConsumer : public ASTConsumer {
  public:
    IndexConsumer(const FingerprintRequest& request, std::size_t tu, Index& index,
                  const SourceManager& sm)
        : request_(request), tu_(tu), index_(index), sm_(sm) {}

    // The system headers' bodies are never part of a fingerprint: not parsing them is most of
    // what keeps this pass cheap (as binding's DeclCollector does).
    bool shouldSkipFunctionBody(Decl* decl) override {
        return sm_.isInSystemHeader(decl->getLocation());
    }

    void HandleTranslationUnit(ASTContext& ctx) override {
        Reader reader(ctx, request_, tu_, index_);
        DefinitionWalker walker(reader);
        walker.TraverseDecl(ctx.getTranslationUnitDecl());
        index_.tu_hashes[tu_] = reader.all_project_tokens();
    }

  private:
    const FingerprintRequest& request_;
    std::size_t tu_;
    Index& index_;
    const SourceManager& sm_;
};

class IndexAction : public ASTFrontendAction {
  public:
    IndexAction(const FingerprintRequest& request, std::size_t tu, Index& index)
        : request_(request), tu_(tu), index_(index) {}

    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
        ci.getFrontendOpts().SkipFunctionBodies = true;  // asks the consumer, body by body
        return std::make_unique<IndexConsumer>(request_, tu_, index_, ci.getSourceManager());
    }

  private:
    const FingerprintRequest& request_;
    std::size_t tu_;
    Index& index_;
};

// Reads one translation unit: `main_name` with `main_text` (in memory) or, with an empty text,
// the file itself.
void read_tu(const FingerprintRequest& request, const std::string& main_name,
             const std::string& main_text, std::size_t tu, Index& index) {
    std::vector<std::string> args = {
        "rop-fingerprint", "-fsyntax-only", "-xc++", "-std=c++20", "-w", "-ferror-limit=0"};
    const std::string resource_dir =
        request.resource_dir.empty() ? ROP_CLANG_RESOURCE_DIR : request.resource_dir;
    if (!resource_dir.empty()) {
        args.push_back("-resource-dir");
        args.push_back(resource_dir);
    }
    for (const std::string& dir : request.include_dirs) args.push_back("-I" + dir);
    for (const std::string& flag : request.flags) {
        if (flag.starts_with("-D") || flag.starts_with("-U")) args.push_back(flag);
    }
    args.push_back(main_name);
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
        new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
    llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(
        new llvm::vfs::InMemoryFileSystem);
    overlay->pushOverlay(memory);
    if (!main_text.empty()) {
        memory->addFile(main_name, 0, llvm::MemoryBuffer::getMemBufferCopy(main_text, main_name));
    }
    llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), overlay));
    tooling::ToolInvocation invocation(
        std::move(args), std::make_unique<IndexAction>(request, tu, index), files.get());
    // Clang's messages are binding's to show; a file it cannot read only fingerprints less.
    IgnoringDiagConsumer diagnostics;
    invocation.setDiagnosticConsumer(&diagnostics);
    llvm::CrashRecoveryContext::Enable();
    llvm::CrashRecoveryContext recovery;
    const bool finished = recovery.RunSafely([&] { invocation.run(); });
    llvm::CrashRecoveryContext::Disable();
    if (!finished) index.errors.push_back("Clang crashed reading " + index.tu_names[tu]);
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    const fs::path out = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? path : out.string();
}

}  // namespace
}  // namespace fingerprint

std::string result_flags(const std::vector<std::string>& flags) {
    std::string out;
    for (const std::string& flag : flags) {
        const bool code = flag.starts_with("-f") && !flag.starts_with("-fdiagnostics") &&
                          !flag.starts_with("-fcolor") && !flag.starts_with("-fmessage-length");
        if (!(code || flag.starts_with("-D") || flag.starts_with("-U") || flag.starts_with("-m") ||
              flag.starts_with("-std="))) {
            continue;
        }
        out += (out.empty() ? "" : " ") + flag;
    }
    return out;
}

std::map<std::string, sema::CodeFingerprint> fingerprint_udfs(const std::vector<std::string>& udfs,
                                                              const FingerprintRequest& request) {
    std::vector<FingerprintRoots> roots;
    roots.reserve(udfs.size());
    for (const std::string& udf : udfs) roots.push_back({udf, {udf}});
    return fingerprint_udfs(roots, request);
}

std::map<std::string, sema::CodeFingerprint> fingerprint_udfs(
    const std::vector<FingerprintRoots>& udfs, const FingerprintRequest& given) {
    using fingerprint::Entry;
    using fingerprint::hex128;
    FingerprintRequest request = given;
    for (std::string& dir : request.library_dirs) {
        dir = fingerprint::absolute(dir);
        if (!dir.ends_with('/')) dir += '/';
    }
    for (std::string& dir : request.include_dirs) dir = fingerprint::absolute(dir);
    if (!request.base_dir.empty()) request.base_dir = fingerprint::absolute(request.base_dir);

    fingerprint::Index index;
    // The .cpp files first: a `use` header one of them includes is read there, and the headers
    // left (header-only UDFs) in one more translation unit. Each Clang run costs about as much as
    // parsing the standard headers, so that is the pass's time.
    auto read = [&](const std::string& name, const std::string& text) {
        index.tu_names.push_back(name);
        index.tu_hashes.emplace_back();
        fingerprint::read_tu(request, name, text, index.tu_names.size() - 1, index);
    };
    for (const std::string& source : request.sources) read(fingerprint::absolute(source), "");
    std::string headers_text;
    for (const std::string& header : request.headers) {
        const std::string path = fingerprint::absolute(header);
        if (index.files_read.count(path) == 0) headers_text += "#include \"" + path + "\"\n";
    }
    if (!headers_text.empty()) read(fingerprint::kHeadersFile, headers_text);

    const std::string flags = result_flags(request.flags);
    std::map<std::string, sema::CodeFingerprint> out;
    for (const FingerprintRoots& roots : udfs) {
        const std::string& udf = roots.key;
        sema::CodeFingerprint code;
        code.flags = flags;
        // The roots: every definition of those names (overloads, the class and its methods).
        std::vector<std::string> pending;
        for (const auto& [key, entry] : index.entries) {
            if (std::find(roots.names.begin(), roots.names.end(), entry.name) !=
                roots.names.end()) {
                pending.push_back(key);
            }
        }
        std::vector<std::string> unresolved;
        if (pending.empty()) {
            unresolved.push_back("no definition of " + udf +
                                 " in the files compiled with the pipeline");
        }
        std::set<std::string> seen(pending.begin(), pending.end());
        std::set<std::size_t> tus_reached;
        std::vector<const Entry*> reached;
        while (!pending.empty()) {
            const std::string key = pending.back();
            pending.pop_back();
            auto found = index.entries.find(key);
            if (found == index.entries.end()) {
                auto declared = index.declared.find(key);
                unresolved.push_back("a call to " +
                                     (declared == index.declared.end() ? key : declared->second) +
                                     ", defined in none of the files compiled with the pipeline");
                continue;
            }
            const Entry& entry = found->second;
            reached.push_back(&entry);
            tus_reached.insert(entry.tu);
            unresolved.insert(unresolved.end(), entry.unresolved.begin(), entry.unresolved.end());
            for (const std::string& next : entry.uses) {
                if (seen.insert(next).second) pending.push_back(next);
            }
        }
        std::sort(reached.begin(), reached.end(), [](const Entry* a, const Entry* b) {
            return std::tie(a->name, a->location) < std::tie(b->name, b->location);
        });
        std::string all = "rop-code-1\n";
        for (const Entry* entry : reached) {
            code.functions.push_back({entry->name, entry->location, entry->hash});
            all += entry->name + "\n" + entry->hash + "\n";
        }
        all += "flags\n" + flags + "\n";
        if (!unresolved.empty()) {
            code.fallback = unresolved.front();
            if (unresolved.size() > 1) {
                code.fallback += " (and " + std::to_string(unresolved.size() - 1) + " more)";
            }
            // Every project file of the translation units involved; all of them when none is.
            if (tus_reached.empty()) {
                for (std::size_t i = 0; i < index.tu_hashes.size(); ++i) tus_reached.insert(i);
            }
            all += "fallback\n";
            for (std::size_t tu : tus_reached) all += index.tu_hashes[tu] + "\n";
        }
        code.digest = hex128(all);
        out.emplace(udf, std::move(code));
    }
    return out;
}

}  // namespace rop::bind
