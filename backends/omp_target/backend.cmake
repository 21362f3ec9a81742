# The OpenMP target offload backend (issue 39): GCC's offloading of `#pragma omp target` regions to
# NVIDIA GPUs (nvptx), a module of its own (lib/gpubench/libgpubench_omp_target.so) compiled and
# linked with -foffload=nvptx-none, loaded only when omp_target is asked for. Without a GPU the
# regions run on the host, the OpenMP initial device, which the backend lists as a device of its
# own: a point asked of a GPU that ran there fails by name.
option(GPUBENCH_OMP_TARGET "Build the OpenMP target offload backend (GCC's nvptx offloading)" ON)
if(NOT GPUBENCH_OMP_TARGET)
  gpubench_backend(NAME omp_target NOT_BUILT "configured with -DGPUBENCH_OMP_TARGET=OFF")
  return()
endif()
# sm_80 PTX (CUDA 13's ptxas refuses GCC's default sm_35; the driver compiles it for the GPU there), and the
# device's libm (newlib's: sqrtf, fma, ...) and libatomic (the reductions' 16-byte exchanges).
set(GPUBENCH_OMP_TARGET_FLAGS -fopenmp -foffload=nvptx-none "-foffload-options=nvptx-none=-misa=sm_80 -lm -latomic")
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  gpubench_backend(NAME omp_target NOT_BUILT "the C++ compiler is not GCC (${CMAKE_CXX_COMPILER_ID}): the backend is built with GCC's nvptx offloading")
  return()
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fopenmp -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80")
set(CMAKE_REQUIRED_LINK_OPTIONS ${GPUBENCH_OMP_TARGET_FLAGS})
check_cxx_source_compiles("
#include <omp.h>
int main() {
  int x = 0;
#pragma omp target map(tofrom: x)
  x = omp_is_initial_device() ? 1 : 2;
  return x > 2;
}" GPUBENCH_GCC_OFFLOADS_TO_NVPTX)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT GPUBENCH_GCC_OFFLOADS_TO_NVPTX)
  gpubench_backend(NAME omp_target NOT_BUILT "GCC cannot offload to nvptx here (Debian gcc-12-offload-nvptx and libgomp-plugin-nvptx1: scripts/setup installs them; configure again)")
  return()
endif()
add_library(gpubench_omp_target_objects OBJECT ${CMAKE_CURRENT_LIST_DIR}/omp_target.cpp)
set_target_properties(gpubench_omp_target_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(gpubench_omp_target_objects PRIVATE ${GPUBENCH_WARNINGS} ${GPUBENCH_OMP_TARGET_FLAGS})
# Whatever links these objects (the module, the tests) links with the offload compiler too: the
# regions' device code is made at link time (mkoffload).
target_link_options(gpubench_omp_target_objects INTERFACE ${GPUBENCH_OMP_TARGET_FLAGS})
target_link_libraries(gpubench_omp_target_objects PUBLIC gpubench_settings ${CMAKE_DL_LIBS})
# What a kernel spec's omp_target source is compiled with at run time (kernels/spec/omp_target.cpp):
# this compiler (and its version line) and its offload flags, '|' between them.
# The compiler by its own name (/usr/bin/c++ is an alternative that another machine may point at
# another GCC, without nvptx offloading: a spec's objects compiled here then run there from the cache).
file(REAL_PATH ${CMAKE_CXX_COMPILER} omp_gcc_cxx)
execute_process(COMMAND ${omp_gcc_cxx} --version OUTPUT_VARIABLE omp_gcc_version ERROR_QUIET)
string(REGEX REPLACE "\n.*" "" omp_gcc_version "${omp_gcc_version}")
target_compile_definitions(gpubench_omp_target_objects PRIVATE GPUBENCH_SPEC_OFFLOAD_CXX="${omp_gcc_cxx}"
  "GPUBENCH_SPEC_OFFLOAD_VERSION=\"${omp_gcc_version}\""
  "GPUBENCH_SPEC_OFFLOAD_FLAGS=\"-O3|-fopenmp|-foffload=nvptx-none|-foffload-options=nvptx-none=-misa=sm_80 -lm -latomic|-fPIC|-shared|-std=c++17\"")
add_dependencies(gpubench_omp_target_objects gpubench_commit)
add_library(gpubench_omp_target MODULE)
target_link_libraries(gpubench_omp_target PRIVATE gpubench_omp_target_objects)
set_target_properties(gpubench_omp_target PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${GPUBENCH_MODULE_DIR})
gpubench_backend(NAME omp_target OBJECTS gpubench_omp_target_objects MODULE gpubench_omp_target ORDER 14
  TESTS tests/backends/test_omp_target.cpp)

