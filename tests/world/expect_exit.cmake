# Runs CMD (arguments joined with '|') and checks it exits with EXPECT and prints exactly one
# "strider: error:" line on stderr: a clean, reported failure rather than a
# crash (which WILL_FAIL alone would also accept).
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT}; stderr: ${err}")
endif()
string(REGEX MATCHALL "strider: error:[^\n]*" lines "${err}")
list(LENGTH lines count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one error line, got ${count}: ${err}")
endif()
message(STATUS "failed as expected: ${lines}")
