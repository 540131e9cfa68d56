// Number formatting for messages and tables.
#pragma once
#include <string>

namespace eacu {

/// `v` with `digits` digits after the point ("0.42"), as printf's "%.*f".
std::string fixed(double v, int digits = 2);

}  // namespace eacu
