# Fuzz targets. Each fuzz target is a C file defining LLVMFuzzerTestOneInput.
# They are compiled with clang's libFuzzer (plus ASan/UBSan) by a custom
# command, whatever compiler builds the rest, so the normal gcc build still
# fuzzes. strider_add_fuzzer() also adds a ctest "fuzz_NAME" that runs the
# fuzzer for a bounded time from a seed corpus (copied, so seeds stay clean).
#
# strider_add_fuzzer(NAME name SOURCES files... SEEDS dir [SECONDS n]
#                    [FLAGS compile flags...] [LIBS link flags...] [DICT file]
#                    [EXTRA_SEEDS files... [EXTRA_SECONDS n] [EXTRA_MAX_LEN bytes]])
#   SOURCES: the harness first, then the code under test. A relative path is
#   looked up in the calling folder, then in src/ ("anim/skel.c"). Every
#   loader reads through core, so core/file.c, core/log.c and core/text.c
#   are always added. Project headers resolve from src/, test helpers from
#   tests/common (fuzz_header.h: the sealed-header pass of the binary formats).
#   SEEDS: the seed corpus, relative to the calling folder or absolute.
#   SECONDS: how long ctest fuzzes (default 20).
#   FLAGS, LIBS: added to the compile and link line (-D..., -isystem ...,
#   -lz, -ldl).
#   DICT: a libFuzzer dictionary (keywords of the format), relative to the
#   calling folder or absolute.
#   EXTRA_SEEDS: large seed files that may not be committed (../shared),
#   used where they exist: they get a pass of their own first, of
#   EXTRA_SECONDS (default 30) with inputs up to EXTRA_MAX_LEN bytes
#   (default 4 MiB; libFuzzer's own limit, 1 MiB, would cut them short, and
#   inputs that large in the main pass would slow all of it down).
find_program(STRIDER_CLANG NAMES clang clang-14)

function(strider_add_fuzzer)
  cmake_parse_arguments(F "" "NAME;SEEDS;SECONDS;DICT;EXTRA_SECONDS;EXTRA_MAX_LEN"
                        "SOURCES;FLAGS;LIBS;EXTRA_SEEDS" ${ARGN})
  if(F_DICT)
    get_filename_component(F_DICT ${F_DICT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  if(NOT STRIDER_CLANG)
    message(FATAL_ERROR "clang not found (fuzz targets need libFuzzer): install the Debian packages 'clang' and 'libclang-rt-14-dev'")
  endif()
  if(NOT F_SECONDS)
    set(F_SECONDS 20)
  endif()
  if(NOT F_EXTRA_SECONDS)
    set(F_EXTRA_SECONDS 30)
  endif()
  if(NOT F_EXTRA_MAX_LEN)
    set(F_EXTRA_MAX_LEN 4194304)
  endif()
  set(sources)
  foreach(f ${F_SOURCES} core/file.c core/log.c core/text.c)
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
            -isystem ${STB_INCLUDE_DIR} ${F_FLAGS}
            ${F_SOURCES} -o ${out} ${STB_LIBRARY} ${F_LIBS} -lm
    DEPENDS ${F_SOURCES}
    COMMENT "Building libFuzzer target fuzz_${F_NAME}" VERBATIM)
  add_custom_target(fuzz_${F_NAME} ALL DEPENDS ${out})
  add_test(NAME fuzz_${F_NAME}
    COMMAND ${CMAKE_COMMAND}
      -DFUZZER=${out} -DSEEDS=${F_SEEDS} -DWORK=${CMAKE_BINARY_DIR}/fuzz/corpus_${F_NAME}
      -DSECONDS=${F_SECONDS} -DDICT=${F_DICT} "-DEXTRA_SEEDS=${F_EXTRA_SEEDS}"
      -DEXTRA_SECONDS=${F_EXTRA_SECONDS} -DEXTRA_MAX_LEN=${F_EXTRA_MAX_LEN}
      -P ${STRIDER_ROOT_DIR}/cmake/RunFuzzer.cmake)
  set_tests_properties(fuzz_${F_NAME} PROPERTIES LABELS fuzz TIMEOUT 600)
endfunction()
