# Installs the build into a scratch prefix, builds the consumer against it and runs it, checks what
# the installed libjitfp8.so exports, and runs the installed CLI. PREFIX_PATH's entries are
# separated by '|'.
string(REPLACE "|" ";" PREFIX_PATH "${PREFIX_PATH}")

# Every function the public headers declare at namespace scope is exported (JITFP8_API), and the
# consumer names it, so that its link proves the export. (The headers declare each function on
# one line starting at column 0, its return type first, with no attribute before it.)
file(GLOB public_headers "${SOURCE_DIR}/../../include/jitfp8/*.hpp")
file(READ "${SOURCE_DIR}/consumer.cpp" consumer_source)
foreach(header IN LISTS public_headers)
  file(STRINGS "${header}" declarations REGEX "^[A-Za-z].*\\(")
  foreach(line IN LISTS declarations)  # (a ';' splits a line: its later pieces are skipped)
    if(NOT line MATCHES "^[A-Za-z].*\\(" OR line MATCHES "^(constexpr|inline|namespace|struct|class|enum|using|template|#)")
      continue()
    endif()
    if(NOT line MATCHES "^JITFP8_API ")
      message(FATAL_ERROR "${header}: a public function without JITFP8_API (not exported): ${line}")
    endif()
    if(NOT line MATCHES "([A-Za-z_0-9]+)\\(")
      message(FATAL_ERROR "${header}: cannot find the function's name in: ${line}")
    endif()
    string(FIND "${consumer_source}" "&jitfp8::${CMAKE_MATCH_1})" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "tests/install/consumer.cpp does not name jitfp8::${CMAKE_MATCH_1} in kApi")
    endif()
  endforeach()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
                "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix;${PREFIX_PATH}" "-DEXPECTED_VERSION=${VERSION}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
# With no LD_LIBRARY_PATH: what the installed library needs at run time (libnvrtc and its
# builtins) is found from its RUNPATH and the system's, as for any user of the package.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${WORK_DIR}/consumer/consumer"
                        "${WORK_DIR}/consumer-cache"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer failed (${rc})")
endif()
# The same consumer built without CMake, from what the installed jitfp8.pc says (pkg-config from
# a prefix it was not configured for: the file finds its prefix from its own place).
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found (tools/install_deps.sh installs pkgconf): jitfp8.pc is not checked")
endif()
file(GLOB pc_dirs "${WORK_DIR}/prefix/lib*/pkgconfig" "${WORK_DIR}/prefix/lib*/*/pkgconfig")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_dirs}" --unset=PKG_CONFIG_LIBDIR
                        "${PKG_CONFIG}" --cflags --libs "jitfp8 = ${VERSION}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE pc_flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT pc_flags MATCHES "-ljitfp8")
  message(FATAL_ERROR "pkg-config --cflags --libs 'jitfp8 = ${VERSION}' failed (${rc}) in ${pc_dirs}: ${pc_flags}${err}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
execute_process(COMMAND "${CXX}" -std=c++20 "-DEXPECTED_VERSION=\"${VERSION}\"" "${SOURCE_DIR}/consumer.cpp"
                        ${pc_flags} -o "${WORK_DIR}/pc-consumer"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer with jitfp8.pc's flags (${pc_flags}) failed (${rc}): ${out}${err}")
endif()
# Its -L adds no run path: the loader is told where the prefix's library is, as a user would.
file(GLOB lib_dirs LIST_DIRECTORIES true "${WORK_DIR}/prefix/lib*")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${lib_dirs}" "${WORK_DIR}/pc-consumer"
                        "${WORK_DIR}/pc-consumer-cache"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer built from jitfp8.pc failed (${rc}): ${out}${err}")
endif()
message(STATUS "built from jitfp8.pc: ${out}")

# The library exports its API and nothing of its internals or of the libraries it instantiates.
file(GLOB installed_library "${WORK_DIR}/prefix/lib*/libjitfp8.so.*.*.*")
execute_process(COMMAND "${NM}" -D -C --defined-only ${installed_library}
                RESULT_VARIABLE rc OUTPUT_VARIABLE exported ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT exported MATCHES "jitfp8::gemm_fp8_nt")
  message(FATAL_ERROR "nm -D ${installed_library} failed (${rc}) or lists no jitfp8::gemm_fp8_nt: ${err}")
endif()
# (The standard library's templates instantiated on internal types may show, as their typeinfo.)
string(REGEX MATCHALL "\n[0-9a-f]* [A-Za-z] (typeinfo name for |typeinfo for |vtable for )?(jitfp8::detail|nlohmann|fmt::)[^\n]*"
       leaked "\n${exported}")
if(leaked)
  list(LENGTH leaked count)
  list(GET leaked 0 first)
  message(FATAL_ERROR "libjitfp8.so exports ${count} internal symbols, e.g. ${first}")
endif()

# The installed CLI runs with no LD_LIBRARY_PATH (it links the library's objects statically), and
# prewarms without a GPU.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${WORK_DIR}/prefix/bin/jitfp8" help
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: jitfp8")
  message(FATAL_ERROR "the installed jitfp8 CLI failed (${rc}): ${err}")
endif()
file(WRITE "${WORK_DIR}/m.json"
     [[{"model": "install-test", "ops": [{"op": "quantize_rowwise", "m": [1, 4096], "k": 4096, "x_dtype": "bf16"}]}]])
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${WORK_DIR}/prefix/bin/jitfp8" prewarm
                        --quiet --arch sm_90a --jobs 1 --cache-dir "${WORK_DIR}/cli-cache" "${WORK_DIR}/m.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "kernels: [1-9][0-9]* compiled, 0 already cached, 0 failed")
  message(FATAL_ERROR "the installed jitfp8 CLI did not prewarm (${rc}): ${out}${err}")
endif()

# Nothing installed links libcuda: the driver is opened at run time, so that compiling,
# prewarming and dumping work where there is none (a direct cu* call would link the stub back in).
foreach(binary IN ITEMS ${installed_library} "${WORK_DIR}/prefix/bin/jitfp8")
  execute_process(COMMAND "${READELF}" -d "${binary}" RESULT_VARIABLE rc OUTPUT_VARIABLE dynamic ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT dynamic MATCHES "NEEDED")
    message(FATAL_ERROR "readelf -d ${binary} failed (${rc}): ${err}")
  endif()
  if(dynamic MATCHES "libcuda\\.so")
    message(FATAL_ERROR "${binary} links libcuda: ${dynamic}")
  endif()
endforeach()
