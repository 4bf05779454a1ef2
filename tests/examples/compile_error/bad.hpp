#pragma once
#include <string>

#include <rop/udf.h>

namespace bad {

struct Factor {
    explicit Factor(int value) : value(value) {}
    int value;
};

class Scale {
public:
    explicit Scale(Factor factor) : factor_(factor) {}
    std::string operator()(const std::string& text) const { return text; }

private:
    Factor factor_;
};

}  // namespace bad
