# The TesselDialects static library. Included from cmake/CMakeLists.txt after
# find_package(MLIR) and include(TableGen/AddLLVM/AddMLIR).
#
# Layout:
#   dialects/include/tessel/Dialect/{TPoly,TGPU}/*.td, *.h   ODS and headers
#   dialects/include/tessel-c/Dialects.h                      C API
#   dialects/lib/{TPoly,TGPU,CAPI}/*.cpp                      C++
#   <build>/include/tessel/Dialect/{TPoly,TGPU}/*.inc         generated
#   <build>/lib/libTesselDialects.a                           the library

get_filename_component(TESSEL_DIALECTS_DIR "${CMAKE_CURRENT_LIST_DIR}/../dialects" ABSOLUTE)
set(TESSEL_DIALECTS_INCLUDE_DIR "${TESSEL_DIALECTS_DIR}/include")
set(TESSEL_DIALECTS_GEN_DIR "${CMAKE_CURRENT_BINARY_DIR}/include")

# mlir_tablegen passes the directory's include paths to mlir-tblgen as -I.
include_directories(${TESSEL_DIALECTS_INCLUDE_DIR} ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})

set(TESSEL_TD_DIR "${TESSEL_DIALECTS_INCLUDE_DIR}/tessel/Dialect")
set(TESSEL_TD_DEPENDS
  "${TESSEL_TD_DIR}/TPoly/TPolyDialect.td"
  "${TESSEL_TD_DIR}/TPoly/TPolyAttrs.td"
  "${TESSEL_TD_DIR}/TPoly/TPolyOps.td"
  "${TESSEL_TD_DIR}/TGPU/TGPUDialect.td"
  "${TESSEL_TD_DIR}/TGPU/TGPUOps.td")

# tessel_dialect_tablegen(<Dialect dir> <td file> <output stem> <tblgen args...>)
# Runs mlir-tblgen on dialects/include/tessel/Dialect/<dir>/<td> and writes
# <build>/include/tessel/Dialect/<dir>/<stem>, so that the sources include it
# as "tessel/Dialect/<dir>/<stem>".
set(TESSEL_TABLEGEN_OUTPUTS)
function(tessel_dialect_tablegen dir td stem)
  file(MAKE_DIRECTORY "${TESSEL_DIALECTS_GEN_DIR}/tessel/Dialect/${dir}")
  set(LLVM_TARGET_DEFINITIONS "${TESSEL_TD_DIR}/${dir}/${td}")
  set(LLVM_TARGET_DEPENDS ${TESSEL_TD_DEPENDS})
  set(TABLEGEN_OUTPUT)
  mlir_tablegen("include/tessel/Dialect/${dir}/${stem}" ${ARGN})
  set(TESSEL_TABLEGEN_OUTPUTS ${TESSEL_TABLEGEN_OUTPUTS} ${TABLEGEN_OUTPUT} PARENT_SCOPE)
endfunction()

# tpoly
tessel_dialect_tablegen(TPoly TPolyOps.td TPolyDialect.h.inc -gen-dialect-decls -dialect=tpoly)
tessel_dialect_tablegen(TPoly TPolyOps.td TPolyDialect.cpp.inc -gen-dialect-defs -dialect=tpoly)
tessel_dialect_tablegen(TPoly TPolyAttrs.td TPolyEnums.h.inc -gen-enum-decls)
tessel_dialect_tablegen(TPoly TPolyAttrs.td TPolyEnums.cpp.inc -gen-enum-defs)
tessel_dialect_tablegen(TPoly TPolyAttrs.td TPolyAttrs.h.inc -gen-attrdef-decls -attrdefs-dialect=tpoly)
tessel_dialect_tablegen(TPoly TPolyAttrs.td TPolyAttrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=tpoly)
tessel_dialect_tablegen(TPoly TPolyOps.td TPolyOps.h.inc -gen-op-decls)
tessel_dialect_tablegen(TPoly TPolyOps.td TPolyOps.cpp.inc -gen-op-defs)
# tgpu
tessel_dialect_tablegen(TGPU TGPUOps.td TGPUDialect.h.inc -gen-dialect-decls -dialect=tgpu)
tessel_dialect_tablegen(TGPU TGPUOps.td TGPUDialect.cpp.inc -gen-dialect-defs -dialect=tgpu)
tessel_dialect_tablegen(TGPU TGPUOps.td TGPUOps.h.inc -gen-op-decls)
tessel_dialect_tablegen(TGPU TGPUOps.td TGPUOps.cpp.inc -gen-op-defs)

add_custom_target(TesselDialectsIncGen DEPENDS ${TESSEL_TABLEGEN_OUTPUTS})

# Markdown reference generated from the .td descriptions (not built by
# default): cmake --build <build> --target tessel-dialects-doc
# => <build>/docs/{TPoly,TGPU}.md
set(TESSEL_DOC_OUTPUTS)
foreach(dialect TPoly TGPU)
  string(TOLOWER ${dialect} dialect_name)
  set(doc "${CMAKE_CURRENT_BINARY_DIR}/docs/${dialect}.md")
  add_custom_command(OUTPUT "${doc}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/docs"
    COMMAND mlir-tblgen -gen-dialect-doc -dialect=${dialect_name}
            -I "${TESSEL_DIALECTS_INCLUDE_DIR}" -I "${MLIR_INCLUDE_DIRS}"
            "${TESSEL_TD_DIR}/${dialect}/${dialect}Ops.td" -o "${doc}"
    DEPENDS ${TESSEL_TD_DEPENDS}
    COMMENT "Generating docs/${dialect}.md"
    VERBATIM)
  list(APPEND TESSEL_DOC_OUTPUTS "${doc}")
endforeach()
add_custom_target(tessel-dialects-doc DEPENDS ${TESSEL_DOC_OUTPUTS})

add_library(TesselDialects STATIC
  "${TESSEL_DIALECTS_DIR}/lib/TPoly/TPolyDialect.cpp"
  "${TESSEL_DIALECTS_DIR}/lib/TGPU/TGPUDialect.cpp"
  "${TESSEL_DIALECTS_DIR}/lib/CAPI/Dialects.cpp"
  "${TESSEL_DIALECTS_DIR}/lib/CAPI/Passes.cpp")
add_dependencies(TesselDialects TesselDialectsIncGen)
target_include_directories(TesselDialects PUBLIC
  "${TESSEL_DIALECTS_INCLUDE_DIR}"
  "${TESSEL_DIALECTS_GEN_DIR}"
  ${MLIR_INCLUDE_DIRS}
  ${LLVM_INCLUDE_DIRS})
separate_arguments(TESSEL_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(TesselDialects PRIVATE ${TESSEL_LLVM_DEFINITIONS})
# Match how LLVM/MLIR is built and used: no RTTI (LLVM-style casts only; with
# RTTI off we never need typeinfo of LLVM classes), no exceptions.
target_compile_options(TesselDialects PRIVATE -fno-rtti -fno-exceptions)
set_target_properties(TesselDialects PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  ARCHIVE_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib")
# Deliberately no target_link_libraries(... MLIR...): the final binary brings
# MLIR (statically via mlir-sys, or libMLIR.so).
