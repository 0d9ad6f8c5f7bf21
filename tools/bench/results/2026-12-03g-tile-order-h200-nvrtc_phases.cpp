// nvrtc_phases DIR...: per kernel dumped by `jitfp8 dump`, ms of the library's compile (cubin) and of the same source
// compiled to PTX only (compute_90a: front end and NVVM, no ptxas); best of 3.
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
static std::string slurp(const std::string& p) { std::ifstream f(p); std::stringstream s; s << f.rdbuf(); return s.str(); }
static double compile(const std::string& src, const std::string& name, std::vector<std::string> opts) {
  std::vector<const char*> o; for (auto& s : opts) o.push_back(s.c_str());
  auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog; nvrtcCreateProgram(&prog, src.c_str(), "k.cu", 0, nullptr, nullptr);
  if (!name.empty()) nvrtcAddNameExpression(prog, name.c_str());
  nvrtcResult res = nvrtcCompileProgram(prog, (int)o.size(), o.data());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (res != NVRTC_SUCCESS) { size_t n; nvrtcGetProgramLogSize(prog, &n); std::string l(n, 0); nvrtcGetProgramLog(prog, l.data()); std::fprintf(stderr, "%s\n", l.c_str()); }
  nvrtcDestroyProgram(&prog);
  return res == NVRTC_SUCCESS ? ms : -1;
}
int main(int argc, char** argv) {
  compile("__global__ void k() {}", "", {"--gpu-architecture=sm_90a"});
  for (int i = 1; i < argc; ++i) {
    std::string dir = argv[i], src = slurp(dir + "/source.cu"), optfile = slurp(dir + "/options.txt");
    std::string name = optfile.substr(optfile.find("# name expression: ") + 19);
    name = name.substr(0, name.find('\n'));
    std::vector<std::string> opts, ptx;
    { std::istringstream o(optfile); std::string l; while (std::getline(o, l)) if (!l.empty() && l[0] != 35) opts.push_back(l); } opts.push_back("-Itemplates");  // run from the repository root
    for (auto& o : opts) ptx.push_back(o.find("sm_90a") != std::string::npos && o.find("arch") != std::string::npos ? std::string("--gpu-architecture=compute_90a") : o);
    double f = 1e9, p = 1e9;
    for (int r = 0; r < 3; ++r) { f = std::min(f, compile(src, name, opts)); p = std::min(p, compile(src, name, ptx)); }
    std::printf("%s cubin %.0f ms, ptx only %.0f ms\n", dir.substr(dir.rfind('/') + 1).c_str(), f, p);
  }
}
