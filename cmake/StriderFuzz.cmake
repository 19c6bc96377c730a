# Fuzz targets. Each fuzz target is a C file defining LLVMFuzzerTestOneInput.
# They are compiled with clang's libFuzzer (plus ASan/UBSan) by a custom
# command, whatever compiler builds the rest, so the normal gcc build still
# fuzzes. strider_add_fuzzer() also adds a ctest "fuzz_NAME" that runs the
# fuzzer for a bounded time from a seed corpus (copied, so seeds stay clean).
#
# strider_add_fuzzer(NAME name SOURCES files... SEEDS dir [SECONDS n])
#   SOURCES: the harness first, then the code under test. A relative path is
#   looked up in the calling folder, then in src/ ("anim/skel.c"). Every
#   loader reads through core, so core/file.c and core/log.c are always
#   added. Project headers resolve from src/, test helpers from tests/common
#   (fuzz_header.h: the sealed-header pass of the binary formats).
#   SEEDS: the seed corpus, relative to the calling folder or absolute.
#   SECONDS: how long ctest fuzzes (default 20).
find_program(STRIDER_CLANG NAMES clang clang-14)

function(strider_add_fuzzer)
  cmake_parse_arguments(F "" "NAME;SEEDS;SECONDS" "SOURCES" ${ARGN})
  if(NOT STRIDER_CLANG)
    message(FATAL_ERROR "clang not found (fuzz targets need libFuzzer): install the Debian packages 'clang' and 'libclang-rt-14-dev'")
  endif()
  if(NOT F_SECONDS)
    set(F_SECONDS 20)
  endif()
  set(sources)
  foreach(f ${F_SOURCES} core/file.c core/log.c)
    if(NOT IS_ABSOLUTE ${f})
      if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${f})
        set(f ${CMAKE_CURRENT_SOURCE_DIR}/${f})
      else()
        set(f ${STRIDER_ROOT_DIR}/src/${f})
      endif()
    endif()
    if(NOT EXISTS ${f})
      message(FATAL_ERROR "strider_add_fuzzer(${F_NAME}): no source ${f}")
    endif()
    list(APPEND sources ${f})
  endforeach()
  list(REMOVE_DUPLICATES sources)
  set(F_SOURCES ${sources})
  get_filename_component(F_SEEDS ${F_SEEDS} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(out ${CMAKE_BINARY_DIR}/fuzz/fuzz_${F_NAME})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/fuzz
    COMMAND ${STRIDER_CLANG} -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined
            -fno-sanitize-recover=undefined -Wall -Wextra -Werror
            -I${STRIDER_ROOT_DIR}/src -I${STRIDER_ROOT_DIR} -I${STRIDER_ROOT_DIR}/tests/common
            -isystem ${STB_INCLUDE_DIR}
            ${F_SOURCES} -o ${out} ${STB_LIBRARY} -lm
    DEPENDS ${F_SOURCES}
    COMMENT "Building libFuzzer target fuzz_${F_NAME}" VERBATIM)
  add_custom_target(fuzz_${F_NAME} ALL DEPENDS ${out})
  add_test(NAME fuzz_${F_NAME}
    COMMAND ${CMAKE_COMMAND}
      -DFUZZER=${out} -DSEEDS=${F_SEEDS} -DWORK=${CMAKE_BINARY_DIR}/fuzz/corpus_${F_NAME}
      -DSECONDS=${F_SECONDS}
      -P ${STRIDER_ROOT_DIR}/cmake/RunFuzzer.cmake)
  set_tests_properties(fuzz_${F_NAME} PROPERTIES LABELS fuzz TIMEOUT 600)
endfunction()
