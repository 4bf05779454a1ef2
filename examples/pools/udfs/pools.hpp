// UDFs of examples/pools: a keyword model that two Calls share through one pool (its keyword
// table is built once per pool actor, not once per actor of each Call), and the report. Bodies
// live in pools.cpp (compiled by ropc build).
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace pools {

struct Sentence {
    std::uint32_t number = 0;  // 1-based, in the file
    std::string text;
};

struct Label {
    std::uint32_t number = 0;           // the sentence's
    std::vector<std::string> keywords;  // the model's keywords it holds, in order
};

// The pool's class: no operator(), two methods, each one Call's UDF (docs/language.md, "pool").
class Model {
  public:
    // The setup a pool runs once per actor: here a keyword table, in a real pipeline a model's
    // weights. `keywords`: comma-separated, matched case-insensitively.
    explicit Model(std::string keywords);

    // expand (`with model.sentences(min_words: 3)`): the text's sentences of at least
    // `min_words` words, split at '.', '!' and '?'.
    std::vector<Sentence> sentences(const std::string& text, int min_words);

    // batch map (`with model.label`): the keywords of each sentence.
    std::vector<Label> label(std::span<const Sentence> sentences);

  private:
    std::set<std::string> keywords_;
};

// map: a file's labels (in sentence order) as a Markdown report.
rop::stdlib::Markdown report(const rop::stdlib::File& file, const std::vector<Label>& labels,
                             std::string title);

}  // namespace pools
