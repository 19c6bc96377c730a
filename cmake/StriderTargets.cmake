# Helpers shared by every target of ours: warnings as errors, sanitizers,
# and GL tests that run under a virtual X server.

add_library(strider_options INTERFACE)
target_compile_options(strider_options INTERFACE -Wall -Wextra -Werror
  $<$<COMPILE_LANGUAGE:C>:-Wshadow -Wstrict-prototypes -Wmissing-prototypes>)
if(STRIDER_SANITIZE)
  target_compile_options(strider_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(strider_options INTERFACE -fsanitize=address,undefined)
endif()

# strider_module(NAME SOURCES... [LIBS ...]): a static library strider_NAME
# whose headers are included as "NAME/header.h" from src/, linking LIBS (the
# modules below it in the layer order, and outside libraries).
function(strider_module name)
  cmake_parse_arguments(M "" "" "SOURCES;LIBS" ${ARGN})
  add_library(strider_${name} STATIC ${M_SOURCES})
  target_include_directories(strider_${name} PUBLIC ${STRIDER_ROOT_DIR}/src ${STRIDER_ROOT_DIR})
  target_link_libraries(strider_${name} PUBLIC strider_options ${M_LIBS})
endfunction()

find_program(XVFB_RUN xvfb-run)

# Test drivers use Debian's interpreter (the one that sees python3-numpy etc.).
find_program(SYSTEM_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT SYSTEM_PYTHON3)
  message(FATAL_ERROR "/usr/bin/python3 not found: install the Debian package 'python3'")
endif()

# strider_add_test(NAME name
#   [SOURCES files... [LIBS libs...]]  build the test program from SOURCES (paths
#                                      relative to this folder) linked with LIBS
#   [EXECUTABLE exe]                   its name (default test_NAME), or the name of
#                                      a program built before, to run it again
#   [COMMAND cmd...]                   what runs (default: the program, then ARGS)
#   [ARGS args...]
#   [GL] [LABELS ...] [TIMEOUT s] [SKIP_RETURN_CODE n]
#   [FIXTURES_SETUP name] [FIXTURES_REQUIRED name])
# GL tests run under xvfb-run with a 1280x720x24 screen (Mesa llvmpipe). Tests
# run in the repository root; the timeout defaults to 300 s.
function(strider_add_test)
  cmake_parse_arguments(T "GL" "NAME;EXECUTABLE;TIMEOUT;SKIP_RETURN_CODE;FIXTURES_SETUP;FIXTURES_REQUIRED"
                        "SOURCES;LIBS;COMMAND;ARGS;LABELS" ${ARGN})
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "strider_add_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_EXECUTABLE)
    set(T_EXECUTABLE test_${T_NAME})
  endif()
  if(T_SOURCES)
    add_executable(${T_EXECUTABLE} ${T_SOURCES})
    target_link_libraries(${T_EXECUTABLE} PRIVATE strider_options ${T_LIBS})
  endif()
  set(cmd ${T_COMMAND})
  if(NOT cmd)
    set(cmd $<TARGET_FILE:${T_EXECUTABLE}>)
  endif()
  list(APPEND cmd ${T_ARGS})
  set(labels ${T_LABELS})
  if(T_GL)
    if(NOT XVFB_RUN)
      message(FATAL_ERROR "xvfb-run not found: install the Debian packages 'xvfb' and 'xauth'")
    endif()
    set(cmd ${XVFB_RUN} -a -s "-screen 0 1280x720x24" ${cmd})
    list(APPEND labels gl)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${cmd} WORKING_DIRECTORY ${STRIDER_ROOT_DIR})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${labels}")
  if(T_GL)
    # render/gfx_validate.h: what one driver forgives fails here too.
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT STRIDER_GL_VALIDATE=1)
  endif()
  foreach(p SKIP_RETURN_CODE FIXTURES_SETUP FIXTURES_REQUIRED)
    if(T_${p})
      set_tests_properties(${T_NAME} PROPERTIES ${p} ${T_${p}})
    endif()
  endforeach()
endfunction()
