# How a suite joins the build: kernels/<suite>/CMakeLists.txt calls gpubench_suite() and
# tests/kernels/<suite>/CMakeLists.txt calls gpubench_suite_tests(); the top CMakeLists.txt and
# tests/CMakeLists.txt pull those fragments in by a sorted glob, so that adding a suite edits no
# file outside its two folders. Paths are relative to the calling fragment's folder. Sources for
# an API are added only when that backend is built (GPUBENCH_BACKENDS).

# gpubench_suite(NAME cg SOURCES ... OPENMP ... OPENCL ... OPENCL_KERNELS ... OPENCL_INCLUDES ...
#                CUDA ... CUDA_LIBRARIES ... NVRTC_KERNELS ... NVRTC_INCLUDES ... VIENNACL ...)
# OPENCL_KERNELS: the suite's .cl files, embedded into the binary (kernel_source("cg/opencl.cl"));
# OPENCL_INCLUDES: the headers they #include, so that a change to one re-embeds them.
# NVRTC_KERNELS, NVRTC_INCLUDES: the same for CUDA kernels compiled at run time (backends/cuda/rtc.hpp).
function(gpubench_suite)
  cmake_parse_arguments(PARSE_ARGV 0 SUITE ""  "NAME"
                        "SOURCES;OPENMP;OPENCL;OPENCL_KERNELS;OPENCL_INCLUDES;CUDA;CUDA_LIBRARIES;NVRTC_KERNELS;NVRTC_INCLUDES;VIENNACL")
  if(NOT SUITE_NAME OR SUITE_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: gpubench_suite() takes NAME and the lists "
                        "SOURCES OPENMP OPENCL OPENCL_KERNELS OPENCL_INCLUDES CUDA CUDA_LIBRARIES NVRTC_KERNELS NVRTC_INCLUDES VIENNACL "
                        "(unexpected: '${SUITE_UNPARSED_ARGUMENTS}')")
  endif()
  foreach(list IN ITEMS SOURCES OPENMP OPENCL OPENCL_KERNELS OPENCL_INCLUDES CUDA NVRTC_KERNELS NVRTC_INCLUDES VIENNACL)
    list(TRANSFORM SUITE_${list} PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  endforeach()

  target_sources(gpubench_objects PRIVATE ${SUITE_SOURCES})
  if(openmp IN_LIST GPUBENCH_BACKENDS)
    target_sources(gpubench_objects PRIVATE ${SUITE_OPENMP})
  endif()
  if(opencl IN_LIST GPUBENCH_BACKENDS)
    target_sources(gpubench_objects PRIVATE ${SUITE_OPENCL})
    # Named as kernel_source() knows them: relative to kernels/.
    foreach(kernel IN LISTS SUITE_OPENCL_KERNELS)
      file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR}/kernels ${kernel})
      set_property(GLOBAL APPEND PROPERTY GPUBENCH_CL_KERNELS ${relative})
    endforeach()
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_CL_INCLUDES ${SUITE_OPENCL_INCLUDES})
  endif()
  if(cuda IN_LIST GPUBENCH_BACKENDS)  # the CUDA module's (the top CMakeLists.txt)
    target_sources(gpubench_cuda_objects PRIVATE ${SUITE_CUDA})
    target_link_libraries(gpubench_cuda_objects PUBLIC ${SUITE_CUDA_LIBRARIES})
    # Compiled at run time by NVRTC: embedded as the .cl files are (kernel_source("gemm/nvrtc.cu")).
    foreach(kernel IN LISTS SUITE_NVRTC_KERNELS)
      file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR}/kernels ${kernel})
      set_property(GLOBAL APPEND PROPERTY GPUBENCH_CL_KERNELS ${relative})
    endforeach()
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_CL_INCLUDES ${SUITE_NVRTC_INCLUDES})
  endif()
  if(viennacl IN_LIST GPUBENCH_BACKENDS)
    target_sources(gpubench_objects PRIVATE ${SUITE_VIENNACL})
    # ViennaCL's OpenCL and OpenMP (host) memory domains, in these files only.
    set_source_files_properties(${SUITE_VIENNACL} TARGET_DIRECTORY gpubench_objects PROPERTIES
      COMPILE_DEFINITIONS "VIENNACL_WITH_OPENCL;VIENNACL_WITH_OPENMP")
  endif()
  set_property(GLOBAL APPEND PROPERTY GPUBENCH_SUITES ${SUITE_NAME})
endfunction()

# gpubench_suite_tests(SOURCES ... OPENMP ... OPENCL ... CUDA ... VIENNACL ...): test files of
# the suite, those for an API only when that backend is built.
function(gpubench_suite_tests)
  cmake_parse_arguments(PARSE_ARGV 0 TESTS "" "" "SOURCES;OPENMP;OPENCL;CUDA;VIENNACL")
  if(TESTS_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: gpubench_suite_tests() takes the lists "
                        "SOURCES OPENMP OPENCL CUDA VIENNACL (unexpected: '${TESTS_UNPARSED_ARGUMENTS}')")
  endif()
  set(files ${TESTS_SOURCES})
  foreach(api IN ITEMS openmp opencl cuda viennacl)
    string(TOUPPER ${api} list)
    if(api IN_LIST GPUBENCH_BACKENDS)
      list(APPEND files ${TESTS_${list}})
    endif()
  endforeach()
  list(TRANSFORM files PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(gpubench_tests PRIVATE ${files})
endfunction()

# add_subdirectory() for each <folder>/*/CMakeLists.txt, in sorted order (one build folder each).
function(gpubench_add_fragments folder)
  file(GLOB fragments LIST_DIRECTORIES false CONFIGURE_DEPENDS ${folder}/*/CMakeLists.txt)
  list(SORT fragments)
  foreach(fragment IN LISTS fragments)
    get_filename_component(dir ${fragment} DIRECTORY)
    add_subdirectory(${dir})
  endforeach()
endfunction()
