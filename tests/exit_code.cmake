# Runs a command and passes its output through unchanged; where it exits with another status than
# the one expected, adds a line that FAIL_REGULAR_EXPRESSION catches.
# For tests judged by their output (PASS_REGULAR_EXPRESSION), for which ctest ignores the exit
# status: a refusal that exited 0, or a crash after its message, would pass.
#   cmake -P exit_code.cmake -- EXPECTED_STATUS COMMAND ARGS...
set(expected "")
set(command "")
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_separator AND expected STREQUAL "")
    set(expected "${CMAKE_ARGV${i}}")
  elseif(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
execute_process(COMMAND ${command} RESULT_VARIABLE rc)
if(NOT "${rc}" STREQUAL "${expected}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "exit_code.cmake: exit status ${rc}, expected ${expected}")
  message(FATAL_ERROR "wrong exit status")
endif()
