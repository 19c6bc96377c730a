# Regenerates every shipped heightmap into OUT with make_levels.sh and checks
# each is byte-identical to the one in assets/levels (generation is
# deterministic, so a difference means someone changed one without the other).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND sh ${ROOT}/tools/terraingen/make_levels.sh ${BUILD} ${OUT}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_levels.sh failed with ${rc}")
endif()
file(GLOB made ${OUT}/*.png)
list(LENGTH made count)
if(count LESS 5)
  message(FATAL_ERROR "make_levels.sh wrote only ${count} heightmaps")
endif()
foreach(png ${made})
  get_filename_component(name ${png} NAME)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${png} ${ROOT}/assets/levels/${name}
    RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "assets/levels/${name} differs from what make_levels.sh generates")
  endif()
endforeach()
message(STATUS "${count} heightmaps match assets/levels")
