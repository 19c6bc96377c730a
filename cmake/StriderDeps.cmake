# Finds every third-party dependency as a Debian package. A missing one stops
# configuration with the name of the package that provides it.
find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config'")
endif()

function(strider_require_pkg target_name pc_name deb_name)
  pkg_check_modules(${target_name} QUIET IMPORTED_TARGET ${pc_name})
  if(NOT ${target_name}_FOUND)
    message(FATAL_ERROR "${pc_name} not found: install the Debian package '${deb_name}'")
  endif()
endfunction()

strider_require_pkg(SDL2  sdl2  libsdl2-dev)
strider_require_pkg(GLEW  glew  libglew-dev)
strider_require_pkg(CGLM  cglm  libcglm-dev)
strider_require_pkg(IMGUI imgui libimgui-dev)
strider_require_pkg(ASSIMP assimp libassimp-dev)
strider_require_pkg(ZLIB  zlib  zlib1g-dev)

# Mesh simplification for the crowd's levels of detail (asset/lod.c).
find_package(meshoptimizer CONFIG QUIET)
if(NOT meshoptimizer_FOUND)
  message(FATAL_ERROR "meshoptimizer not found: install the Debian package 'libmeshoptimizer-dev'")
endif()

find_package(OpenGL QUIET COMPONENTS OpenGL)
if(NOT OpenGL_OpenGL_FOUND)
  message(FATAL_ERROR "OpenGL (libOpenGL) not found: install the Debian package 'libgl-dev'")
endif()

find_path(STB_INCLUDE_DIR stb_image.h PATH_SUFFIXES stb)
find_path(STB_WRITE_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
if(NOT STB_INCLUDE_DIR OR NOT STB_WRITE_INCLUDE_DIR)
  message(FATAL_ERROR "stb_image.h / stb_image_write.h not found: install the Debian package 'libstb-dev'")
endif()
# libstb-dev ships the implementations in libstb.so; we link it so that no
# translation unit of ours has to define STB_IMAGE_IMPLEMENTATION.
find_library(STB_LIBRARY stb)
if(NOT STB_LIBRARY)
  message(FATAL_ERROR "libstb not found: install the Debian package 'libstb-dev'")
endif()
add_library(strider_stb INTERFACE)
target_include_directories(strider_stb SYSTEM INTERFACE ${STB_INCLUDE_DIR})
target_link_libraries(strider_stb INTERFACE ${STB_LIBRARY})

find_package(Threads REQUIRED)

find_library(MATH_LIBRARY m)
