# ctest driver: strider-clipgen samples the same bytes twice from the
# character, strider-keyreduce reduces them to the same bytes twice, the
# reduced clip stays within the bound at every original key time
# (test_clip --check), and it is byte for byte the shipped clip.
# -DGEN=<strider-clipgen> -DREDUCE=<strider-keyreduce> -DCHECK=<test_clip>
# -DCHR=<character> -DSHIPPED=<assets/clips/talk.vac> -DWORK=<dir>
# The options here are the ones documented in assets/clips/README.md.
set(BOUND 0.05)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(run a b)
  execute_process(COMMAND ${GEN} --in ${CHR} --out ${WORK}/${run}_full.vac RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strider-clipgen failed with ${rc}")
  endif()
  execute_process(COMMAND ${REDUCE} --in ${WORK}/${run}_full.vac --out ${WORK}/${run}.vac --bound ${BOUND}
                  --mode hermite RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strider-keyreduce failed with ${rc}")
  endif()
endforeach()
foreach(f _full "")
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/a${f}.vac ${WORK}/b${f}.vac RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message(FATAL_ERROR "two runs gave different bytes for a${f}.vac")
  endif()
endforeach()
execute_process(COMMAND ${CHECK} --check ${WORK}/a_full.vac ${WORK}/a.vac ${BOUND} hermite RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the reduced clip exceeds the ${BOUND} cm bound")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/a.vac ${SHIPPED} RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "${SHIPPED} is stale: regenerate it as assets/clips/README.md says")
endif()
