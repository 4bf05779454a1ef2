// The nondeterminism lint: a syntactic walk over a UDF's body for calls and types whose results
// differ from run to run. It looks for the obvious cases only (docs/udfs.md lists them); a clean
// report means "nothing obvious", not "proven deterministic".
// GCC's flow-sensitive -Wnull-dereference fires inside inlined Clang header code
// (RecursiveASTVisitor, CXXRecordDecl); SYSTEM includes cannot silence it there.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wnonnull"
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>

#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "bind/clang_bridge.h"

namespace rop::bind::detail {
namespace {

using namespace clang;

// C library functions (also reached as std::name) whose result depends on the run.
const std::set<std::string, std::less<>> kNondeterministicFunctions = {
    "rand",         "srand",         "rand_r",       "random",  "srandom",
    "drand48",      "erand48",       "lrand48",      "nrand48", "mrand48",
    "jrand48",      "getrandom",     "arc4random",   "time",    "clock",
    "gettimeofday", "clock_gettime", "timespec_get", "getenv",  "secure_getenv",
};

bool in_global_or_std(const FunctionDecl& function) {
    const DeclContext* context = function.getDeclContext()->getRedeclContext();
    if (context->isTranslationUnit()) return true;
    const auto* ns = llvm::dyn_cast<NamespaceDecl>(context);
    return ns && ns->getName() == "std" && ns->getParent()->getRedeclContext()->isTranslationUnit();
}

// "std::unordered_map" when `type` (after references) is an unordered container, else "".
std::string unordered_container(QualType type) {
    QualType canonical = type.getNonReferenceType().getCanonicalType();
    const auto* spec =
        llvm::dyn_cast_or_null<ClassTemplateSpecializationDecl>(canonical->getAsCXXRecordDecl());
    if (!spec) return {};
    std::string name = plain_qualified_name(*spec->getSpecializedTemplate());
    if (name == "std::unordered_map" || name == "std::unordered_set" ||
        name == "std::unordered_multimap" || name == "std::unordered_multiset") {
        return name;
    }
    return {};
}

class NondeterminismWalker : public RecursiveASTVisitor<NondeterminismWalker> {
  public:
    NondeterminismWalker(const Decl& udf, std::string udf_name, const LocationMapper& where)
        : owner_(llvm::dyn_cast<CXXRecordDecl>(&udf)),
          udf_name_(std::move(udf_name)),
          where_(where) {}

    std::vector<NondeterminismFinding> take() { return std::move(findings_); }

    bool VisitCallExpr(CallExpr* call) {
        const FunctionDecl* callee = call->getDirectCallee();
        if (!callee) return true;
        std::string what = nondeterministic_call(*callee);
        if (what.empty()) what = unordered_iteration_call(*call, *callee);
        if (!what.empty()) {
            report(what, call->getBeginLoc());
        } else {
            follow(*callee);
        }
        return true;
    }

    bool VisitCXXConstructExpr(CXXConstructExpr* construct) {
        const CXXConstructorDecl* ctor = construct->getConstructor();
        if (plain_qualified_name(*ctor->getParent()) == "std::random_device") {
            report("std::random_device", construct->getBeginLoc());
        } else {
            follow(*ctor);
        }
        return true;
    }

    bool VisitCXXForRangeStmt(CXXForRangeStmt* loop) {
        std::string container = unordered_container(loop->getRangeInit()->getType());
        if (!container.empty()) report("iteration over " + container, loop->getBeginLoc());
        return true;
    }

  private:
    static std::string nondeterministic_call(const FunctionDecl& callee) {
        const IdentifierInfo* id = callee.getIdentifier();
        if (!id) return {};
        if (in_global_or_std(callee) && kNondeterministicFunctions.count(id->getName()) != 0) {
            return id->getName().str() + "()";
        }
        // std::chrono::system_clock::now(), steady_clock, high_resolution_clock, utc_clock, ...
        const auto* method = llvm::dyn_cast<CXXMethodDecl>(&callee);
        if (method && method->isStatic() && id->getName() == "now") {
            std::string clock = plain_qualified_name(*method->getParent());
            if (clock.rfind("std::chrono::", 0) == 0 && clock.size() > 6 &&
                clock.compare(clock.size() - 6, 6, "_clock") == 0) {
                return clock + "::now()";
            }
        }
        return {};
    }

    // m.begin() / std::begin(m) on an unordered container: the order is the hash table's.
    static std::string unordered_iteration_call(const CallExpr& call, const FunctionDecl& callee) {
        const IdentifierInfo* id = callee.getIdentifier();
        if (!id) return {};
        StringRef name = id->getName();
        if (name != "begin" && name != "cbegin") return {};
        std::string container;
        if (const auto* member = llvm::dyn_cast<CXXMemberCallExpr>(&call)) {
            container = unordered_container(member->getObjectType());
        } else if (call.getNumArgs() == 1 && in_global_or_std(callee)) {
            container = unordered_container(call.getArg(0)->getType());
        }
        return container.empty() ? std::string() : "iteration over " + container;
    }

    // One level deep into helpers whose bodies the headers show (not the standard library's,
    // not lambdas, which are walked where they are written, not the class UDF's own methods,
    // which are walked with the class).
    void follow(const FunctionDecl& callee) {
        if (depth_ > 0) return;
        const FunctionDecl* definition = nullptr;
        if (!callee.hasBody(definition) || !definition || definition->hasSkippedBody()) return;
        const SourceManager& sm = definition->getASTContext().getSourceManager();
        if (sm.isInSystemHeader(definition->getLocation())) return;
        if (const auto* method = llvm::dyn_cast<CXXMethodDecl>(definition)) {
            if (method->getParent()->isLambda()) return;
            if (owner_ && method->getParent()->getCanonicalDecl() == owner_->getCanonicalDecl()) {
                return;
            }
        }
        if (!followed_.insert(definition->getCanonicalDecl()).second) return;
        ++depth_;
        via_ = plain_qualified_name(*definition);
        TraverseDecl(const_cast<FunctionDecl*>(definition));
        via_.clear();
        --depth_;
    }

    void report(std::string what, SourceLocation loc) {
        SourceLoc location = where_(loc);
        auto key = std::make_tuple(what, location.file, location.line, location.column);
        if (!reported_.insert(key).second) return;
        findings_.push_back({udf_name_, std::move(what), std::move(location), via_});
    }

    const CXXRecordDecl* owner_;
    std::string udf_name_;
    const LocationMapper& where_;
    int depth_ = 0;
    std::string via_;
    std::set<const Decl*> followed_;
    std::set<std::tuple<std::string, std::string, std::uint32_t, std::uint32_t>> reported_;
    std::vector<NondeterminismFinding> findings_;
};

}  // namespace

std::vector<NondeterminismFinding> lint_nondeterminism(const Decl& udf, const std::string& udf_name,
                                                       const LocationMapper& where) {
    NondeterminismWalker walker(udf, udf_name, where);
    walker.TraverseDecl(const_cast<Decl*>(&udf));
    return walker.take();
}

}  // namespace rop::bind::detail
