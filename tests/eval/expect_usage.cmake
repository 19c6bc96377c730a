# Runs CMD (arguments joined with '|') and checks it exits with EXPECT after
# printing exactly one "strider eval:" line on stderr, and nothing on stdout.
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT}; stderr: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${err}")
list(LENGTH lines count)
if(NOT count EQUAL 1 OR NOT err MATCHES "^strider eval: " OR NOT out STREQUAL "")
  message(FATAL_ERROR "expected one 'strider eval:' line and no output, got stderr '${err}' stdout '${out}'")
endif()
message(STATUS "failed as expected: ${err}")
