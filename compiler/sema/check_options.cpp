#include "sema/check_options.h"

#include <cctype>
#include <cmath>
#include <span>
#include <string>
#include <unordered_map>

#include "rop/vocab/suggest.h"
#include "sema/call_options.h"

namespace rop::sema {

namespace {

// Where a statement's options sit, or nothing when it runs no UDF and so takes no Call option;
// a reduce also takes the reduce options, with or without `with`.
struct Site {
    std::optional<OptionSite> site;
    std::string construct;  // "a source", "map", ...
    bool reduce = false;
    bool pool = false;  // a pool statement: the placement options only
};

bool allowed_on(const OptionSpec& spec, const Site& site) {
    if (site.pool) return is_pool_option(spec.name);
    return (site.site && allowed_at(spec, *site.site)) ||
           (site.reduce && allowed_at(spec, OptionSite::Reduce));
}

Site site_of(const ast::Statement& statement) {
    if (std::holds_alternative<ast::Source>(statement)) return {OptionSite::Source, "a source"};
    if (std::holds_alternative<ast::Sink>(statement)) return {OptionSite::Sink, "a sink"};
    if (std::holds_alternative<ast::Pool>(statement)) {
        return {OptionSite::Call, "a pool", false, true};
    }
    const auto& stage = std::get<ast::Stage>(statement);
    const std::string kind = ast::to_string(stage.kind);
    if (stage.kind == ast::StageKind::Broadcast) return {std::nullopt, "broadcast"};
    if (stage.kind == ast::StageKind::Reduce && !stage.op)
        return {std::nullopt, "reduce without `with`", true};
    return {OptionSite::Call, kind, stage.kind == ast::StageKind::Reduce};
}

const std::vector<ast::Option>& options_of(const ast::Statement& statement) {
    if (const auto* source = std::get_if<ast::Source>(&statement)) return source->options;
    if (const auto* sink = std::get_if<ast::Sink>(&statement)) return sink->options;
    if (const auto* pool = std::get_if<ast::Pool>(&statement)) return pool->options;
    return std::get<ast::Stage>(statement).options;
}

std::string join_names(std::span<const std::string_view> names) {
    std::string out;
    for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

std::vector<std::string_view> names_at(std::optional<OptionSite> site) {
    std::vector<std::string_view> names;
    for (const OptionSpec& spec : option_specs()) {
        if (!site || allowed_at(spec, *site)) names.push_back(spec.name);
    }
    return names;
}

std::vector<std::string_view> names_at(const Site& site) {
    std::vector<std::string_view> names;
    for (const OptionSpec& spec : option_specs()) {
        if (allowed_on(spec, site)) names.push_back(spec.name);
    }
    return names;
}

std::string format_number(double value) {
    std::string text = std::to_string(value);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
}

// 604800000 -> "7d", 7200000 -> "2h": the largest unit that divides the milliseconds.
std::string duration_text(double ms) {
    struct Unit {
        const char* suffix;
        double ms;
    };
    constexpr Unit kUnits[] = {{"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1000}};
    for (const Unit& unit : kUnits) {
        if (ms >= unit.ms && std::fmod(ms, unit.ms) == 0) {
            return format_number(ms / unit.ms) + unit.suffix;
        }
    }
    return format_number(ms) + "ms";
}

std::string range_text(const OptionSpec& spec) {
    // Durations are whole milliseconds and every duration option's least is 1ms.
    if (spec.kind == OptionKind::Duration) {
        return "a duration greater than 0s and at most " + duration_text(spec.max);
    }
    if (spec.kind == OptionKind::Gpus) {
        return "a whole number of GPUs from 1 to " + format_number(spec.max) +
               ", or a fraction greater than 0 and at most 1 that shares one GPU";
    }
    return format_number(spec.min) + ".." + format_number(spec.max);
}

// gpus: a GPU is either whole or shared, so 1.5 (one and a half devices) means nothing.
bool in_range(double number, const OptionSpec& spec) {
    if (!std::isfinite(number)) return false;
    if (spec.kind == OptionKind::Gpus) {
        return (number > 0 && number <= 1) ||
               (number >= 1 && number <= spec.max && number == std::floor(number));
    }
    return number >= spec.min && number <= spec.max;
}

std::string kind_name(OptionKind kind) {
    switch (kind) {
        case OptionKind::Int: return "an integer";
        case OptionKind::Number:
        case OptionKind::Gpus: return "a number";
        case OptionKind::Duration: return "a duration (e.g. 30s, 500ms, 2m)";
        case OptionKind::Enum: return "one of the words";
    }
    return "a value";
}

class OptionChecker {
  public:
    explicit OptionChecker(DiagnosticEngine& diags) : diags_(diags) {}

    // `pool`: the pool a Call runs on, whose options it may not set.
    void check(const ast::Statement& statement, const PoolDecl* pool = nullptr) {
        const Site site = site_of(statement);
        seen_.clear();
        for (const ast::Option& option : options_of(statement)) {
            const OptionSpec* spec = find_option_spec(option.name.name);
            if (spec == nullptr) {
                unknown(option, site);
                continue;
            }
            const auto [it, inserted] = seen_.try_emplace(spec->name, &option);
            if (!inserted) {
                duplicate(option, *it->second);
                continue;
            }
            if (pool != nullptr && is_pool_option(spec->name)) {
                pool_option(option, *pool);
                continue;
            }
            if (!allowed_on(*spec, site)) {
                not_allowed(option, site);
                continue;
            }
            if (check_kind(option, *spec)) check_value(option, *spec);
        }
        if (pool == nullptr) check_memory();
    }

  private:
    std::string text(SourceRange range) const {
        return std::string(
            diags_.sources().text(range.file).substr(range.begin, range.end - range.begin));
    }

    void unknown(const ast::Option& option, const Site& site) {
        Diagnostic& d = diags_.report(DiagId::UnknownOption, option.name.range,
                                      "unknown option '" + option.name.name + "'");
        if (const auto guess = vocab::closest(option.name.name, names_at(std::nullopt))) {
            d.notes.push_back({std::nullopt, "did you mean '" + std::string(*guess) + "'?"});
            d.fixit = FixIt{option.name.range, std::string(*guess)};
        }
        if (site.site || site.reduce) {
            d.notes.push_back(
                {std::nullopt, site.construct + " takes: " + join_names(names_at(site))});
        }
    }

    void duplicate(const ast::Option& option, const ast::Option& first) {
        Diagnostic& d = diags_.report(DiagId::DuplicateOption, option.range,
                                      "option '" + option.name.name + "' is given twice");
        d.notes.push_back({first.range, "first given here"});
        d.fixit = FixIt{with_leading_space(option.range), ""};
    }

    void not_allowed(const ast::Option& option, const Site& site) {
        std::string why =
            site.site ? site.construct + " takes only: " + join_names(names_at(site))
            : site.reduce
                ? site.construct + " runs no UDF, so it takes only: " + join_names(names_at(site))
                : site.construct + " runs no UDF, so it takes no options";
        Diagnostic& d =
            diags_.report(DiagId::OptionNotAllowed, option.name.range,
                          "option '" + option.name.name + "' is not allowed on " + site.construct);
        d.notes.push_back({std::nullopt, why});
        d.fixit = FixIt{with_leading_space(option.range), ""};
    }

    // `actors 4` on a Call that runs on a pool: the pool's actors run it.
    void pool_option(const ast::Option& option, const PoolDecl& pool) {
        const std::string name(pool.name);
        Diagnostic& d = diags_.report(DiagId::PlacementOptionOnPooledCall, option.name.range,
                                      "option '" + option.name.name +
                                          "' is not allowed on a Call that runs on pool '" + name +
                                          "': the pool's actors run it");
        d.notes.push_back({pool.range, "set '" + option.name.name + "' on pool '" + name +
                                           "' (it takes: " + join_names(kPoolOptions) + ")"});
        d.fixit = FixIt{with_leading_space(option.range), ""};
    }

    // False when the kind is wrong (reported here): the value cannot be range-checked then.
    bool check_kind(const ast::Option& option, const OptionSpec& spec) {
        using K = ast::Value::Kind;
        const K kind = option.value.kind;
        bool ok = false;
        switch (spec.kind) {
            case OptionKind::Int: ok = kind == K::Int; break;
            case OptionKind::Number:
            case OptionKind::Gpus: ok = kind == K::Int || kind == K::Float; break;
            case OptionKind::Duration: ok = kind == K::Duration; break;
            case OptionKind::Enum: ok = kind == K::Ident; break;
        }
        if (ok) return true;
        std::string expected = kind_name(spec.kind);
        if (spec.kind == OptionKind::Enum) expected += " " + join_names(spec.enumerators);
        Diagnostic& d =
            diags_.report(DiagId::OptionValueKind, option.value.range,
                          "option '" + option.name.name + "' takes " + expected + ", found " +
                              ast::to_string(kind) + " " + text(option.value.range));
        if (spec.kind == OptionKind::Duration && kind == K::Int) {
            d.notes.push_back({std::nullopt, "a duration needs a unit: ms, s, m or h"});
            d.fixit = FixIt{
                {option.value.range.file, option.value.range.end, option.value.range.end}, "s"};
        } else if (spec.kind == OptionKind::Enum && kind == K::String) {
            d.notes.push_back({std::nullopt, "write the word without quotes"});
            d.fixit = FixIt{option.value.range, option.value.text};
        }
        return false;
    }

    // False when the value is not one the option takes (reported here).
    bool check_value(const ast::Option& option, const OptionSpec& spec) {
        const ast::Value& value = option.value;
        if (spec.kind == OptionKind::Enum) {
            for (std::string_view word : spec.enumerators) {
                if (word == value.text) return true;
            }
            Diagnostic& d = diags_.report(DiagId::UnknownOptionValue, value.range,
                                          "unknown " + option.name.name + " '" + value.text + "'");
            if (const auto guess = vocab::closest(value.text, spec.enumerators)) {
                d.notes.push_back({std::nullopt, "did you mean '" + std::string(*guess) + "'?"});
                d.fixit = FixIt{value.range, std::string(*guess)};
            }
            d.notes.push_back(
                {std::nullopt, option.name.name + " is one of: " + join_names(spec.enumerators)});
            return false;
        }
        const double number = value.kind == ast::Value::Kind::Float
                                  ? value.float_value
                                  : static_cast<double>(value.int_value);
        if (in_range(number, spec)) return true;
        Diagnostic& d = diags_.report(DiagId::OptionOutOfRange, value.range,
                                      "option '" + option.name.name + "' is out of range: " +
                                          text(value.range) + "; it takes " + range_text(spec));
        d.notes.push_back({std::nullopt, option.name.name + ": " + std::string(spec.meaning)});
        return false;
    }

    // memory_mb limits a worker process (setrlimit): a Call in threads has none to limit, and a
    // limit that would be silently ignored is an error (E0307).
    void check_memory() {
        const auto memory = seen_.find("memory_mb");
        if (memory == seen_.end() || memory->second->value.int_value == 0) return;
        const auto isolation = seen_.find("isolation");
        if (isolation != seen_.end() &&
            isolation->second->value.text == vocab::word(vocab::Isolation::Process)) {
            return;
        }
        Diagnostic& d = diags_.report(DiagId::MemoryWithoutIsolation, memory->second->range,
                                      "option 'memory_mb' limits a worker process, but this Call "
                                      "runs in threads (one address space for the whole run)");
        d.notes.push_back({std::nullopt,
                           "add 'isolation process' to run its UDF in worker "
                           "processes, each limited to memory_mb MiB"});
    }

    // The option plus the blank before it, so deleting it leaves tidy text.
    SourceRange with_leading_space(SourceRange range) const {
        const std::string_view source = diags_.sources().text(range.file);
        while (range.begin > 0 &&
               (source[range.begin - 1] == ' ' || source[range.begin - 1] == '\t')) {
            --range.begin;
        }
        return range;
    }

    DiagnosticEngine& diags_;
    std::unordered_map<std::string_view, const ast::Option*> seen_;
};

}  // namespace

void check_options(const ast::Program& program, const Resolution& resolution,
                   DiagnosticEngine& diags) {
    OptionChecker checker(diags);
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const ast::Statement& statement = program.statements[s];
        if (std::holds_alternative<ast::Use>(statement)) continue;
        const std::uint32_t pool =
            s < resolution.pool_of.size() ? resolution.pool_of[s] : kUnresolved;
        checker.check(statement, pool == kUnresolved ? nullptr : &resolution.pools[pool]);
    }
}

}  // namespace rop::sema
