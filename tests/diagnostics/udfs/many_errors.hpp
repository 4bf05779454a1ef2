// More C++ errors than Clang stops at (20), for E0508_too_many_errors.rop and tests/bind: the
// real errors are shown at this header's `use`, and no "too many errors" at the pipeline's first.
#pragma once

#include <string>

namespace many {
std::string e01(undeclared_01 x);
std::string e02(undeclared_02 x);
std::string e03(undeclared_03 x);
std::string e04(undeclared_04 x);
std::string e05(undeclared_05 x);
std::string e06(undeclared_06 x);
std::string e07(undeclared_07 x);
std::string e08(undeclared_08 x);
std::string e09(undeclared_09 x);
std::string e10(undeclared_10 x);
std::string e11(undeclared_11 x);
std::string e12(undeclared_12 x);
std::string e13(undeclared_13 x);
std::string e14(undeclared_14 x);
std::string e15(undeclared_15 x);
std::string e16(undeclared_16 x);
std::string e17(undeclared_17 x);
std::string e18(undeclared_18 x);
std::string e19(undeclared_19 x);
std::string e20(undeclared_20 x);
std::string e21(undeclared_21 x);
std::string e22(undeclared_22 x);
std::string e23(undeclared_23 x);
std::string e24(undeclared_24 x);
}  // namespace many
