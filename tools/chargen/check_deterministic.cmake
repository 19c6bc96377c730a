# ctest driver: the generator must produce the same bytes twice, and the
# result must load (strider-chargen re-reads it through the preview path).
# -DGEN=<strider-chargen> -DWORK=<dir> -DARGS=<generator options, ;-separated>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(run a b)
  execute_process(COMMAND ${GEN} --out ${WORK}/${run}.chr ${ARGS} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strider-chargen ${ARGS} failed with ${rc}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/a.chr ${WORK}/b.chr
                RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "two runs of strider-chargen ${ARGS} gave different bytes")
endif()
execute_process(COMMAND ${GEN} --in ${WORK}/a.chr --preview ${WORK}/a.png --view face
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "reloading and previewing the generated character failed")
endif()
