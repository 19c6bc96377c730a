# ctest driver for one fuzz target: fresh working corpus from the seeds, then
# a bounded libFuzzer run. Any crash, leak or sanitizer report fails the test.
# EXTRA_SEEDS (large, uncommitted files; those that exist) first get a run of
# their own, EXTRA_SECONDS long with inputs up to EXTRA_MAX_LEN bytes.
set(common -rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
if(DICT)
  list(APPEND common -dict=${DICT})
endif()

set(large)
foreach(extra ${EXTRA_SEEDS})
  if(EXISTS ${extra})
    list(APPEND large ${extra})
  endif()
endforeach()
if(large)
  set(large_work ${WORK}_large)
  file(REMOVE_RECURSE ${large_work})
  file(MAKE_DIRECTORY ${large_work})
  file(COPY ${large} DESTINATION ${large_work})
  execute_process(
    COMMAND ${FUZZER} -max_total_time=${EXTRA_SECONDS} -max_len=${EXTRA_MAX_LEN} ${common}
            -artifact_prefix=${large_work}/ ${large_work}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fuzzer exited with ${rc} on the large seeds; crashing inputs are in ${large_work}")
  endif()
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(GLOB seeds ${SEEDS}/*)
if(NOT seeds)
  message(FATAL_ERROR "no seed files in ${SEEDS}")
endif()
file(COPY ${seeds} DESTINATION ${WORK})
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} ${common} -artifact_prefix=${WORK}/ ${WORK}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer exited with ${rc}; crashing inputs are in ${WORK}")
endif()
