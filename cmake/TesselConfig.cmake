# TesselConfig.cmake: use Tessel from a CMake project.
#
#   find_package(Tessel CONFIG REQUIRED PATHS /path/to/tessel/cmake)
#   add_executable(app main.c)
#   tessel_compile_kernels(app
#     SOURCES gemm.c jacobi2d.c
#     OFFLOAD_ARCH sm_80 sm_90
#     FLAGS -DSMALL_DATASET)
#
# Variables (all may be preset with -D or set() before find_package):
#   TESSELC_EXECUTABLE      the tesselc driver; searched for on PATH and in the
#                           repository's target/release and target/debug
#   TESSEL_RUNTIME_LIBRARY  the Tessel runtime library the compiled host code
#                           calls (module load, launch, alloc, memcpy); linked
#                           into every target given to tessel_compile_kernels
#                           when set or found (names tessel_runtime,
#                           tessel-runtime)
#   TESSEL_FOUND            TRUE once tesselc is found

get_filename_component(TESSEL_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

find_program(TESSELC_EXECUTABLE
  NAMES tesselc
  HINTS "${TESSEL_ROOT}/target/release" "${TESSEL_ROOT}/target/debug" ENV TESSEL_ROOT
  DOC "Tessel's C-to-GPU compiler driver")
find_library(TESSEL_RUNTIME_LIBRARY
  NAMES tessel_runtime tessel-runtime
  HINTS "${TESSEL_ROOT}/target/release" "${TESSEL_ROOT}/target/debug"
  DOC "Tessel's device runtime (C ABI)")

if(TESSELC_EXECUTABLE)
  set(TESSEL_FOUND TRUE)
else()
  set(TESSEL_FOUND FALSE)
  if(Tessel_FIND_REQUIRED)
    message(FATAL_ERROR "Tessel: tesselc not found; build it (cargo build --release) "
      "or pass -DTESSELC_EXECUTABLE=/path/to/tesselc")
  endif()
endif()

# tessel_compile_kernels(<target>
#     SOURCES <file.c>...
#     OFFLOAD_ARCH <arch>...
#     [FLAGS <tesselc flag>...]
#     [OUTPUT_DIR <dir>])
#
# Ahead-of-time compiles C kernel sources (static control parts, PolyBench
# style) with tesselc and links the results into <target>.
#
# For every source file it adds a build-time custom command
#
#   tesselc -c <source> --offload-arch=<arch>... [-O0 -g in Debug builds]
#           [-I/-D of <target>'s INCLUDE_DIRECTORIES and COMPILE_DEFINITIONS]
#           [FLAGS...] -MD -MF <OUTPUT_DIR>/<name>.o.d -o <OUTPUT_DIR>/<name>.o
#
# run from the current source directory (so `FLAGS -Iinc` means the source tree's
# inc/, as for a compiler), that re-runs when the source, any header it read (the
# depfile, on Ninja and Makefile generators) or tesselc changes. Each output is a host
# object file: the kernels' device images (sim's form of every kernel, PTX and,
# when ptxas is available, cubin for sm_* targets; HSACO for gfx* targets)
# embedded as data, plus
# the host functions with the original C signatures that load them and launch
# them through the Tessel runtime. The objects are added to <target> as
# sources (EXTERNAL_OBJECT), so they link like any other object file, and
# TESSEL_RUNTIME_LIBRARY is linked when known.
#
#   SOURCES       C files, relative to the current source directory or absolute
#   OFFLOAD_ARCH  the GPU targets: sm_NN[a] (NVIDIA) or gfxNNN (AMD); every object
#                 carries a code object per architecture, and the runtime picks
#                 the one the GPU present runs (the sim form is always embedded)
#   FLAGS         extra tesselc arguments (clang's -I/-D/-std=/-W..., tesselc's own);
#                 relative paths resolve against the current source directory
#   OUTPUT_DIR    where the objects go; default
#                 ${CMAKE_CURRENT_BINARY_DIR}/tessel/<target>
function(tessel_compile_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIR" "SOURCES;OFFLOAD_ARCH;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessel_compile_kernels: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tessel_compile_kernels: '${target}' is not a target")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tessel_compile_kernels(${target}): SOURCES is empty")
  endif()
  if(NOT ARG_OFFLOAD_ARCH)
    message(FATAL_ERROR "tessel_compile_kernels(${target}): give at least one "
      "OFFLOAD_ARCH (e.g. sm_90 or gfx942)")
  endif()
  if(NOT TESSELC_EXECUTABLE)
    message(FATAL_ERROR "tessel_compile_kernels(${target}): tesselc not found; "
      "set TESSELC_EXECUTABLE")
  endif()

  set(arch_flags)
  foreach(arch IN LISTS ARG_OFFLOAD_ARCH)
    if(NOT arch MATCHES "^(sm_[0-9]+[af]?|gfx[0-9][0-9a-z]*)$")
      message(FATAL_ERROR "tessel_compile_kernels(${target}): unknown OFFLOAD_ARCH "
        "'${arch}'; expected sm_NN (NVIDIA) or gfxNNN (AMD)")
    endif()
    list(APPEND arch_flags "--offload-arch=${arch}")
  endforeach()

  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/tessel/${target}")
  endif()

  string(REPLACE ";" " " arch_list "${ARG_OFFLOAD_ARCH}")
  set(objects)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src_abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # Name the object after the source path so that a/k.c and b/k.c differ.
    file(RELATIVE_PATH src_rel "${CMAKE_CURRENT_SOURCE_DIR}" "${src_abs}")
    string(MAKE_C_IDENTIFIER "${src_rel}" obj_name)
    set(obj "${ARG_OUTPUT_DIR}/${obj_name}.o")
    set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
    set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIR}"
      COMMAND "${TESSELC_EXECUTABLE}" -c "${src_abs}" ${arch_flags}
        "$<$<CONFIG:Debug>:-O0;-g>"
        "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
        "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
        ${ARG_FLAGS} -MD -MF "${obj}.d" -o "${obj}"
      DEPENDS "${src_abs}" "${TESSELC_EXECUTABLE}"
      DEPFILE "${obj}.d"
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
      COMMENT "tesselc ${src_rel} (${arch_list})"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()

  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${target} PRIVATE ${objects})
  if(TESSEL_RUNTIME_LIBRARY)
    target_link_libraries(${target} PRIVATE "${TESSEL_RUNTIME_LIBRARY}" m dl pthread)
  endif()
endfunction()
