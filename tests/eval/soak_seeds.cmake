# The gaps soak at seeds 2 and 3 (20,000 steps each) must meet every
# placement goal (docs/MOTION_EVAL.md).
foreach(seed 2 3)
  execute_process(COMMAND ${STRIDER} eval motion --check placement --scenario soak_gaps --seed ${seed}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "soak_gaps seed ${seed}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
