// A process fork()ed after its parent initialized the CUDA driver cannot use CUDA (the driver's
// state does not survive a fork). The library tells such a child so, as a process without a
// driver, before any driver call, instead of failing or hanging inside the driver (a review,
// 2026-12-05).
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/gemm.hpp"
#include "jitfp8/runtime.hpp"

using namespace jitfp8;

TEST_CASE("a child fork()ed after the driver's initialization is told it cannot use CUDA", "[gpu][fork]") {
  REQUIRE(!devices().empty());                  // the driver initialized in this process
  REQUIRE(gemm_fp8_nt_workspace_bytes() > 0);   // and a device readied
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(30);  // a child hung inside the driver is killed (SIGALRM), not left to the test's timeout
    // Exit codes: 0 as expected; 1 devices listed; 2 no error; 3 another error; 4 wrong words.
    int code = 0;
    if (!devices().empty()) code = 1;
    if (code == 0) {
      try {
        gemm_fp8_nt_workspace_bytes();
        code = 2;
      } catch (const Error& e) {
        if (e.code() != ErrorCode::no_driver) code = 3;
        else if (std::string(e.what()).find("fork()ed") == std::string::npos) code = 4;
      } catch (...) {
        code = 3;
      }
    }
    ::_exit(code);
  }
  int status = 0;
  pid_t waited = 0;
  do waited = ::waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  REQUIRE(waited == pid);
  INFO("the child " << (WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exited with " + std::to_string(WEXITSTATUS(status))));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // The parent goes on as before.
  CHECK(gemm_fp8_nt_workspace_bytes() > 0);
}
