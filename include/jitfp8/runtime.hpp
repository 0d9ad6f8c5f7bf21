// The JIT runtime as users see it: versions, devices, the kernel cache, logging and prewarming.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitfp8/export.hpp"
#include "jitfp8/types.hpp"

namespace jitfp8 {

JITFP8_API std::string library_version();  // "0.1.0"
JITFP8_API int nvrtc_version();            // 13000 for NVRTC 13.0
// nullopt when the driver is not usable: libcuda.so.1 cannot be loaded, lacks an entry point the
// library needs, or cuInit fails (e.g. an installed driver with no usable GPU).
JITFP8_API std::optional<int> driver_version();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  Arch arch;        // the target jitfp8 compiles for on this device (sm_90a on an H100)
  int sm_count = 0;
  std::int64_t max_shared_memory_per_block = 0;  // opt-in maximum, bytes
};
// Empty when there is no driver or no device: only launching needs one. The library serves the
// first 64 devices of the process (ordinals 0-63): devices() lists at most those, and an
// operation with a context of a device past them throws Error(unsupported).
JITFP8_API std::vector<DeviceInfo> devices();

// SMs the GEMM kernels (dense, weight-gradient and grouped) may occupy: 0, the default, means every
// SM of the device. Set it when other kernels run beside the GEMMs and hold SMs (a communication
// kernel on another stream, as MoE dispatch and combine are). Under a limit below the device's
// count the persistent grids have at most `sms` CTAs, without 2-CTA multicast pairs, and split K in
// clusters only in grids of at most 2/3 of `sms`, so that the SMs left free run the whole grid at
// once: without a limit, the CTAs that find no free SM wait for others of the grid to end, and a
// grid of CTA clusters needs its SMs free in one GPC (H200, 20 SMs held: a 4096 x 7168 x 7168 GEMM
// 323 us under set_gemm_sm_limit(112), 494 us unlimited, 597 us in pairs on 112 SMs;
// tools/bench/results/2026-11-30j-gemm-sm-limit-h200.md). Process-wide; each dispatch reads it (a
// change takes effect at the next call; plans for each limit are kept), so a captured CUDA graph
// replays the grids of the limit it was captured under. At or above the device's count it means the
// whole device. Throws Error(invalid_argument) for sms < 0. Workspace sizes (*_workspace_bytes)
// stay those of the whole device.
// A green context needs no limit: a GEMM launched on one of its streams (CUDA 12.4+ drivers), or on
// stream 0 while it is current, plans for the context's SMs by itself, as under a limit of that
// count (with a limit as well, the lower count). `jitfp8 prewarm --gemm-sm-limit N` prewarms those
// plans (tools/bench/results/2026-11-30k-green-contexts-h200.md). Nor does an MPS client with an
// active thread percentage: its device reports the SMs of its share (H200 at 50%: 66), and the
// GEMMs plan for those.
JITFP8_API void set_gemm_sm_limit(int sms);
JITFP8_API int gemm_sm_limit();  // as last set; 0 when unlimited

// Programmatic dependent launch (PDL, sm_90 and newer): off by default; on with `true` here or
// JITFP8_PDL=1 in the environment at start-up. With it every jitfp8 kernel is launched with
// programmatic stream serialization, so it may start while the kernel ahead of it on the stream
// is finishing: its launch, CTA placement and prologue (barrier set-up, tensor-map prefetch)
// overlap that kernel's tail instead of following it, which shortens chains of short kernels
// (decoding: quantize, GEMM, quantize, ...). Stream order still holds for memory: each jitfp8
// kernel waits for the kernel ahead of it to complete (griddepcontrol.wait) before it touches
// global memory, whoever launched that kernel. The quantizers and the MoE layout kernel also let
// the next kernel start early (griddepcontrol.launch_dependents; the GEMMs do not: measured
// slower); that changes nothing for a kernel launched without PDL, and one of yours launched with
// it must wait likewise (cudaGridDependencySynchronize) before it reads what jitfp8 wrote. CUDA
// graphs capture the launches as programmatic edges. Split-K through a workspace (a cooperative
// launch) stays serialized. Process-wide; each launch reads it.
JITFP8_API void set_programmatic_dependent_launch(bool enabled);
JITFP8_API bool programmatic_dependent_launch();

// Tiered compilation: off by default; on with `true` here or JITFP8_TIERED_COMPILE=1 in the
// environment at start-up. A GEMM kernel (dense or M-grouped) found neither loaded nor in a cache
// root is first compiled as its quick variant, which gives bit-identical results from less code
// (one K loop, not unrolled over the ring: 2-6x shorter to compile for tiles of 128+ rows, 2-6%
// slower to run), and launched at once; the full kernel is compiled on a background thread of
// the library and replaces the quick one for the launches after it is loaded. A launch into a
// stream that is being captured into a CUDA graph waits for the full kernel instead, so graphs
// never keep a quick variant, unless the full kernel failed to build (the same bits either way);
// a kernel's first use inside a capture compiles no quick variant: its full kernel is built at
// once (in the background where its plan has a stand-in, or another thread's first use outside a
// capture has already started the kernel as a quick variant; the capture waits for it then).
// Quick variants are not written to the disk cache; prewarming
// compiles full kernels only. Kernels with no quick variant (64-row tiles straddling B-scale
// blocks at 8 offsets, 256-row tiles that split K or whose K blocks do not fill whole ring turns
// (but for those straddling B-scale blocks at 2-4 offsets), 128-row tiles on padded turns, the
// weight-gradient and quantization kernels) compile as before.
// Stand-ins: where a GEMM (dense or M-grouped) has already run on the same problem but another M
// (another row count of the grouped GEMMs), a new M whose kernel is not at hand compiles nothing
// in the foreground: its launches take the kernel that M had (a config that serves this M too,
// the nearest M's; correct, maybe slower) while its own kernel is built in the background; a
// captured launch waits for its own (and takes the stand-in if that build failed).
// The background thread builds one kernel at a time, in the order queued, except that a kernel a
// launch or call waits for is built next.
// Process-wide; read at each first use of a kernel or plan.
JITFP8_API void set_tiered_compilation(bool enabled);
JITFP8_API bool tiered_compilation();
// Blocks until every full kernel that tiered compilation queued is built and loaded (or failed
// to build, logged: its quick variant, or its plans' stand-in, then stays until a later call
// that plans that kernel builds it again: the first such call at once, later ones and new plans
// that have a stand-in in the background, at the 1st, 2nd, 4th, 8th... such request (a build
// that always fails does not keep the thread busy; runtime_stats().background_failures counts
// the failures); a call with nothing else to launch builds it at once, each time until a build
// succeeds; the plans made already do not retry, but take the kernel once it is built).
// Benchmarks call it before timing.
// A background build loads its kernel into the context of the call that queued it: call this
// before destroying that context (cuCtxDestroy, cudaDeviceReset), or that build may fail.
JITFP8_API void wait_for_background_compiles();

// JITFP8_LOG=warn (the default)|info|debug|off (or 0), or set here. Events go to stderr.
enum class LogLevel { off, warn, info, debug };
JITFP8_API void set_log_level(LogLevel level);

// Roots searched for cached kernels: the first is written, the others are read-only lookups.
// Defaults to $JITFP8_CACHE_DIR (':'-separated; a value that names no folder, such as ":", reads
// as unset), else $XDG_CACHE_HOME/jitfp8, else ~/.cache/jitfp8; with none of the three set, no
// disk cache (kernels compiled in each process; one warning says so).
JITFP8_API std::vector<std::string> cache_roots();
// Overrides the roots for this process (an empty list restores the default); an empty path
// among them is an Error(invalid_argument). Plans made afterwards take the tuned configs of the
// new roots' tables (`jitfp8 tune`); plans already made keep theirs.
JITFP8_API void set_cache_roots(const std::vector<std::string>& roots);

// ---- cache administration (the `jitfp8 cache` subcommands) ----------------------------------
struct CacheEntryInfo {
  std::string root;
  std::string path;
  std::string key;          // from the file name
  std::string kernel;       // from the entry's metadata, when readable
  std::uint64_t bytes = 0;
  bool valid = false;       // whole, checksummed, trusted, stored under its own key, and its
                            // cubin defines the kernel its metadata names (as the runtime judges)
  std::string problem;      // why not, when !valid
};
// Every entry under every root (temporary and lock files excluded), each one checked.
JITFP8_API std::vector<CacheEntryInfo> cache_entries();

struct CacheCleanReport {
  int removed_entries = 0;
  int removed_temporaries = 0;     // left by processes killed while publishing
  std::vector<std::string> failures;
};
// Removes invalid entries and stale temporaries from the first (writable) root. An invalid entry
// whose key another process holds locked (it is rebuilding the entry) is left to that process, and
// so is one invalid only because a directory above it is untrusted (fix its permissions).
JITFP8_API CacheCleanReport cache_remove_invalid();
// Removes every entry of the first root, the temporaries of writers no longer running and the
// lock files no process holds; a held lock (its key is being compiled) and a running writer's
// temporary stay, and that writer's entry appears when it finishes.
JITFP8_API CacheCleanReport cache_clear();

// Counters since process start (tests, benchmarks, an application's own logs).
struct RuntimeStats {
  std::uint64_t compiles = 0;          // NVRTC runs
  std::uint64_t disk_hits = 0;         // kernels read from a cache root
  std::uint64_t disk_rejects = 0;      // bad or untrusted entries that were not loaded
  std::uint64_t publishes = 0;         // entries written to the first root
  std::uint64_t lock_waits = 0;        // times another process's compile was awaited
  std::uint64_t loads = 0;             // modules loaded on a device
  std::uint64_t quick_compiles = 0;    // quick variants compiled (tiered compilation; also in compiles)
  std::uint64_t upgrades = 0;          // full kernels built in the background (tiered compilation)
  std::uint64_t stand_ins = 0;         // plans made with a stand-in while their kernel was built
  std::uint64_t background_failures = 0;  // background builds that failed (tiered compilation)
};
JITFP8_API RuntimeStats runtime_stats();

// ---- prewarming -------------------------------------------------------------------------------
// A manifest names a model and the operations it runs, with their shapes (JSON, see
// kernels_cache/README.md). M may be a range: it expands to the distinct kernels it needs (a
// manifest's quantizer without m covers every m; a ManifestOp built here says its range).
struct ManifestOp {
  std::string op;                 // "quantize_1x128", ...
  std::int64_t m_min = 1, m_max = 1;
  std::int64_t n = 0, k = 0;      // what the op uses; unused ones stay 0
  std::int64_t groups = 0;        // MoE expert count, where the op has one
  std::string x_dtype = "bf16";   // quantization input: "bf16" or "f32"
  std::string q_dtype = "e4m3";   // quantization output: "e4m3" or "e5m2"
  std::string d_dtype = "bf16";   // gemm_fp8_nt output: "bf16" or "f32"
  bool pow2_scales = false;
};
struct Manifest {
  std::string model;
  std::vector<ManifestOp> ops;
};
// Throws Error(manifest_error) naming the place and the rule on anything malformed.
JITFP8_API Manifest parse_manifest(const std::string& json_text, const std::string& origin = "<manifest>");
JITFP8_API Manifest load_manifest(const std::string& path);

struct PrewarmOptions {
  std::optional<Arch> arch;  // default: the current device's (needs a driver)
  int sm_count = 0;          // in [0, 1024]: plan the GEMMs for this many SMs (neither the device's tuned
                             // tables nor its measured cluster room then apply); 0: the
                             // device's without `arch`, the arch's usual count with it
                             // (the GEMM SM limit, set_gemm_sm_limit, applies to either)
  int jobs = 0;              // parallel compiles, at most 1024; 0: hardware threads
  bool load = false;         // also load into the current device, ready for graph capture
  bool progress = false;     // draw a progress bar on stderr
};
struct PrewarmReport {
  int kernels = 0;        // distinct kernels the manifests imply
  int compiled = 0;       // built by NVRTC now
  int cached = 0;         // found in a cache root
  int failed = 0;         // not built, or built but not written to the first root (errors say)
  std::vector<double> compile_seconds;  // one per compiled kernel
  std::vector<std::string> errors;
  double wall_seconds = 0;
};
JITFP8_API PrewarmReport prewarm(const std::vector<Manifest>& manifests, const PrewarmOptions& options);

}  // namespace jitfp8
