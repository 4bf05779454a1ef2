// Boost.URL's compiled part, built into this library: Debian's Boost 1.81 ships no
// libboost_url, and the library's own header for this case is <boost/url/src.hpp>. Only this
// module parses URLs (base_url, proxies); a second module that needs Boost.URL should move this
// file to a shared target instead of including src.hpp again (two copies would not link).
#include <boost/url/src.hpp>
