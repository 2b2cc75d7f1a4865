#include "app/io/file_write.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace nsspice::app {

std::string write_failure(const std::string& path, int error_number) {
  return fmt::format("cannot write '{}': {}", path,
                     error_number != 0 ? std::strerror(error_number) : "unknown error");
}

std::string write_whole_file(const std::string& path, std::string_view text) {
  errno = 0;
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return write_failure(path, errno);
  int error = 0;
  if (std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fflush(file) != 0)
    error = errno != 0 ? errno : EIO;
  // fclose reports what a buffered write only finds at the end (NFS, quotas).
  if (std::fclose(file) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  return error == 0 ? std::string() : write_failure(path, error);
}

}  // namespace nsspice::app
