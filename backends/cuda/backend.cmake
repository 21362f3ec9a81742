# The CUDA backend: a module of its own (lib/gpubench/libgpubench_cuda.so), loaded only when CUDA
# is asked for, so that the CUDA libraries are needed by CUDA runs alone; the test programs link
# its objects.
option(GPUBENCH_CUDA "Build the CUDA backend (when nvcc is found)" ON)
if(NOT GPUBENCH_CUDA)
  gpubench_backend(NAME cuda NOT_BUILT "configured with -DGPUBENCH_CUDA=OFF")
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(WARNING "nvcc not found: the CUDA backend is not built")
  gpubench_backend(NAME cuda NOT_BUILT "nvcc not found when configured (install a CUDA toolkit with nvcc 12 or newer, put nvcc on PATH or set CUDACXX, and configure again)")
  return()
endif()
# sm_90 (H100/H200) unless the caller names other architectures.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
# CMake 3.25 does not know that nvcc 12+ takes -std=c++20.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION -std=c++20)
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION -std=c++20)
endif()
find_package(CUDAToolkit REQUIRED)
# The backend wraps cuBLAS and cuSPARSE handles; suites name the libraries their code calls.
add_library(gpubench_cuda_objects OBJECT ${CMAKE_CURRENT_LIST_DIR}/cuda.cpp ${CMAKE_CURRENT_LIST_DIR}/ceilings.cu
            ${CMAKE_CURRENT_LIST_DIR}/rtc.cpp)
set_target_properties(gpubench_cuda_objects PROPERTIES POSITION_INDEPENDENT_CODE ON
  CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON
  CUDA_RUNTIME_LIBRARY Shared)
target_compile_options(gpubench_cuda_objects PRIVATE ${GPUBENCH_WARNINGS})
target_link_libraries(gpubench_cuda_objects PUBLIC gpubench_settings CUDA::cudart CUDA::cublas CUDA::cusparse
                      CUDA::nvrtc)
add_dependencies(gpubench_cuda_objects gpubench_commit)
# The module gpubench loads: its undefined symbols resolve against gpubench's own (ENABLE_EXPORTS
# in the top CMakeLists.txt); installed, it finds the CUDA libraries where this toolkit has them.
add_library(gpubench_cuda MODULE)
target_link_libraries(gpubench_cuda PRIVATE gpubench_cuda_objects)
set_target_properties(gpubench_cuda PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${GPUBENCH_MODULE_DIR}
  CUDA_RUNTIME_LIBRARY Shared INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
gpubench_backend(NAME cuda OBJECTS gpubench_cuda_objects MODULE gpubench_cuda ORDER 12
  LISTS CUDA_LIBRARIES NVRTC_KERNELS NVRTC_INCLUDES
  TESTS tests/backends/test_cuda.cpp tests/backends/cuda_ids.cu tests/backends/test_nvrtc.cpp)

# A suite's CUDA sources (SUITE_FILES) join the module with the libraries they call
# (CUDA_LIBRARIES); its kernels compiled at run time (NVRTC_KERNELS) are embedded with the headers
# they include (NVRTC_INCLUDES): kernel_source("gemm/nvrtc.cu").
function(gpubench_cuda_suite)
  target_sources(gpubench_cuda_objects PRIVATE ${SUITE_FILES})
  target_link_libraries(gpubench_cuda_objects PUBLIC ${SUITE_CUDA_LIBRARIES})
  list(TRANSFORM SUITE_NVRTC_KERNELS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(TRANSFORM SUITE_NVRTC_INCLUDES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  gpubench_embed_kernels(${SUITE_NVRTC_KERNELS} INCLUDES ${SUITE_NVRTC_INCLUDES})
endfunction()
