#include "sim/core/output_folder.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/input_error.h"

namespace roofsim {

namespace {

// " (pid 1234)" from the lock file an exclusive holder wrote, "" when it holds none.
std::string holder_of(int fd) {
  char text[32] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  if (got <= 0) return "";
  std::string pid(text, static_cast<std::size_t>(got));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return "";
  return " (pid " + pid + ")";
}

bool same_file(int fd, const std::filesystem::path& path) {
  struct stat held = {};
  struct stat named = {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

OutputFolder::OutputFolder(std::filesystem::path dir, Access access)
    : dir_(std::move(dir)), lock_file_(dir_ / kOutputLockName), access_(access) {
  const SourcePos where{dir_.string()};
  std::error_code error;
  const auto status = std::filesystem::status(dir_, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw InputError(where, "cannot use this output folder: " + error.message());
  }
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
    throw InputError(where, "exists and is not a folder (--out names the folder to write into)");
  }
  if (!std::filesystem::exists(status)) {
    std::filesystem::create_directories(dir_, error);
    if (error) throw InputError(where, "cannot create the output folder: " + error.message());
  }
  // The name may be unlinked by the previous holder between our open and our lock; then lock the file that now
  // carries the name, so that at most one exclusive holder exists per name.
  for (;;) {
    fd_ = ::open(lock_file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw InputError(where, std::string("cannot write into the output folder (its lock file ") + kOutputLockName +
                                  "): " + std::strerror(errno));
    }
    const int operation = (access_ == Access::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    if (::flock(fd_, operation) != 0) {
      const int error_number = errno;
      if (error_number == EWOULDBLOCK) {
        const auto holder = holder_of(fd_);
        ::close(fd_);
        fd_ = -1;
        throw InputError(where, "another roofsim run" + holder + " is writing into this folder (it holds " +
                                    kOutputLockName + "); wait for it to finish or choose another --out");
      }
      // A filesystem without locks: go on unlocked rather than refuse to write at all.
      ::close(fd_);
      fd_ = -1;
      return;
    }
    if (same_file(fd_, lock_file_)) break;
    ::close(fd_);
    fd_ = -1;
  }
  if (access_ == Access::exclusive) {
    // The pid is for the message of a second run; a full disk that refuses these bytes shows up in the outputs.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) {
      const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
      (void)written;
    }
    remove_on_signal_ = std::make_unique<RemoveOnSignal>(lock_file_);
  }
}

OutputFolder::~OutputFolder() {
  if (fd_ < 0) return;
  // Only a sole holder may remove the name: the exclusive one, or a shared one that finds itself the last.
  if (access_ == Access::exclusive || ::flock(fd_, LOCK_EX | LOCK_NB) == 0) ::unlink(lock_file_.c_str());
  ::close(fd_);
}

}  // namespace roofsim
