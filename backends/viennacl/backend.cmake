# The ViennaCL reference backend: the library's OpenCL memory domain (viennacl) and its OpenMP one
# (viennacl_host). It needs the OpenCL and OpenMP backends (their folders sort before this one).
option(GPUBENCH_VIENNACL "Build the ViennaCL reference backend (when its headers and OpenCL are found)" ON)
if(NOT GPUBENCH_VIENNACL)
  gpubench_backend(NAME viennacl ALSO viennacl_host NOT_BUILT "configured with -DGPUBENCH_VIENNACL=OFF")
  return()
endif()
find_path(VIENNACL_INCLUDE_DIR viennacl/vector.hpp)
get_property(built GLOBAL PROPERTY GPUBENCH_BACKENDS)
if(NOT VIENNACL_INCLUDE_DIR OR NOT opencl IN_LIST built OR NOT openmp IN_LIST built)
  message(WARNING "ViennaCL (libviennacl-dev), OpenCL or the OpenMP backend missing: the ViennaCL backend is not built")
  gpubench_backend(NAME viennacl ALSO viennacl_host
    NOT_BUILT "ViennaCL's headers (libviennacl-dev), OpenCL or the OpenMP backend were missing when configured")
  return()
endif()
set(viennacl_sources ${CMAKE_CURRENT_LIST_DIR}/viennacl.cpp ${CMAKE_CURRENT_LIST_DIR}/domain.cpp)
target_sources(gpubench_objects PRIVATE ${viennacl_sources})
# ViennaCL's OpenCL and OpenMP (host) memory domains, in its files only (and its suites').
set_source_files_properties(${viennacl_sources} PROPERTIES COMPILE_DEFINITIONS "VIENNACL_WITH_OPENCL;VIENNACL_WITH_OPENMP")
target_include_directories(gpubench_objects SYSTEM PRIVATE ${VIENNACL_INCLUDE_DIR})
gpubench_backend(NAME viennacl TESTS tests/backends/test_viennacl.cpp)

function(gpubench_viennacl_suite)
  target_sources(gpubench_objects PRIVATE ${SUITE_FILES})
  set_source_files_properties(${SUITE_FILES} TARGET_DIRECTORY gpubench_objects PROPERTIES
    COMPILE_DEFINITIONS "VIENNACL_WITH_OPENCL;VIENNACL_WITH_OPENMP")
endfunction()
