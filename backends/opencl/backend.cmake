# The OpenCL backend (Debian's ICD loader and headers; PoCL runs it on the CPU where no GPU is).
option(GPUBENCH_OPENCL "Build the OpenCL backend" ON)
if(NOT GPUBENCH_OPENCL)
  gpubench_backend(NAME opencl NOT_BUILT "configured with -DGPUBENCH_OPENCL=OFF")
  return()
endif()
find_package(OpenCL)
if(NOT OpenCL_FOUND)
  message(WARNING "OpenCL not found: the OpenCL backend is not built (scripts/setup installs it)")
  gpubench_backend(NAME opencl
    NOT_BUILT "no OpenCL headers and ICD loader were found when configured (scripts/setup installs them)")
  return()
endif()
target_sources(gpubench_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/opencl.cpp ${CMAKE_CURRENT_LIST_DIR}/ceilings.cpp)
target_compile_definitions(gpubench_objects PUBLIC CL_TARGET_OPENCL_VERSION=120)
target_link_libraries(gpubench_objects PUBLIC OpenCL::OpenCL)
gpubench_embed_kernels(${CMAKE_CURRENT_LIST_DIR}/ceilings.cl)
gpubench_backend(NAME opencl LISTS OPENCL_KERNELS OPENCL_INCLUDES
  TESTS tests/backends/test_opencl.cpp MPI_TEST_RANKS 2)

# A suite's OpenCL sources (SUITE_FILES), and its .cl files (OPENCL_KERNELS) with the headers they
# include (OPENCL_INCLUDES; backends/opencl/ptx.h, which any may include), embedded:
# kernel_source("cg/opencl.cl").
function(gpubench_opencl_suite)
  target_sources(gpubench_objects PRIVATE ${SUITE_FILES})
  list(TRANSFORM SUITE_OPENCL_KERNELS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(TRANSFORM SUITE_OPENCL_INCLUDES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  gpubench_embed_kernels(${SUITE_OPENCL_KERNELS} INCLUDES ${SUITE_OPENCL_INCLUDES} ${CMAKE_SOURCE_DIR}/backends/opencl/ptx.h)
endfunction()
