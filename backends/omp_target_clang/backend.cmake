# The OpenMP target offload backend as Clang builds it (issue 57): the omp_target backend's own
# files (backends/omp_target/omp_target.cpp and every suite's omp_target.cpp), compiled by Clang 19
# with its offload driver for NVIDIA GPUs (--offload-arch) into a module of its own,
# lib/gpubench/libgpubench_omp_target_clang.so, that runs on LLVM's runtime (libomp, libomptarget
# and its CUDA plugin) where omp_target runs on GCC's (libgomp and its nvptx plugin). Both modules
# load into one gpubench, so that one run puts the two compilers' points side by side; the device
# lines and records name the compiler and its version. Without a GPU the regions run on the host,
# the initial device, as GCC's do.
#
# CMake builds the project with one C++ compiler (GCC): this module is compiled and linked by
# custom commands that call clang++ (each object with its depfile), after every suite has named
# its omp_target.cpp. Everything comes from Debian 12's packages (clang-19, clang-tools-19 for the
# offload packager and linker wrapper, libomp-19-dev for libomptarget and the NVPTX device runtime,
# scripts/setup installs them) and the CUDA toolkit's ptxas, which makes the GPU's code.
option(GPUBENCH_OMP_TARGET_CLANG "Build the OpenMP target offload backend through Clang 19" ON)
set(GPUBENCH_OMP_TARGET_CLANG_ARCH sm_90 CACHE STRING "The GPU architecture Clang's offload compiles for (--offload-arch)")
if(NOT GPUBENCH_OMP_TARGET_CLANG)
  gpubench_backend(NAME omp_target_clang NOT_BUILT "configured with -DGPUBENCH_OMP_TARGET_CLANG=OFF")
  return()
endif()
find_program(GPUBENCH_CLANG_CXX NAMES clang++-19)
set(omp_clang_llvm_lib /usr/lib/llvm-19/lib)
set(omp_clang_device_runtime ${omp_clang_llvm_lib}/libomptarget-nvptx-${GPUBENCH_OMP_TARGET_CLANG_ARCH}.bc)
find_program(GPUBENCH_PTXAS NAMES ptxas HINTS ${CUDAToolkit_BIN_DIR} PATHS /usr/local/cuda/bin)
set(omp_clang_packages "Debian's clang-19, clang-tools-19 and libomp-19-dev: scripts/setup installs them; configure again")
if(NOT GPUBENCH_CLANG_CXX)
  gpubench_backend(NAME omp_target_clang NOT_BUILT "clang++-19 not found (${omp_clang_packages})")
  return()
endif()
if(NOT EXISTS ${omp_clang_device_runtime} OR NOT EXISTS ${omp_clang_llvm_lib}/libomptarget.so)
  gpubench_backend(NAME omp_target_clang NOT_BUILT "LLVM 19's libomptarget or its NVPTX device runtime for ${GPUBENCH_OMP_TARGET_CLANG_ARCH} (${omp_clang_device_runtime}) not found (${omp_clang_packages})")
  return()
endif()
if(NOT GPUBENCH_PTXAS)
  gpubench_backend(NAME omp_target_clang NOT_BUILT "ptxas not found: Clang's NVPTX offload needs the CUDA toolkit's (put it on PATH and configure again)")
  return()
endif()
get_filename_component(omp_clang_cuda_path ${GPUBENCH_PTXAS} DIRECTORY)
get_filename_component(omp_clang_cuda_path ${omp_clang_cuda_path} DIRECTORY)
# The flags of every object and of the link. -D_LIBCPP_COMPLEX: Clang 19's OpenMP wrapper of
# <complex> redeclares libstdc++ 12's constexpr std::conj without constexpr under C++20 ("error:
# non-constexpr declaration of 'conj' follows constexpr declaration", kernels/ft/ft.hpp includes
# <complex>); no device code here takes complex arithmetic (FT's device data are pairs of doubles),
# so the wrapper's device overloads are left out by defining the guard of their header.
# -Wno-pass-failed: a `simd` loop the vectoriser does not take is said for each region on the host.
# -fopenmp-target-jit where ptxas is CUDA 13's or later: those cubins carry CUDA's new ELF header
# (ABI version 8: the SM in e_flags' second byte), which LLVM 19's runtime reads as the old one and
# rejects ("Invalid CUDA addressing mode", then "No images found compatible with the installed
# hardware" and no GPU listed; llvm/llvm-project#159088, fixed after LLVM 20). With the flag the
# module carries the device code as LLVM bitcode, optimised at link time, and the runtime compiles it
# for the GPU it finds when it loads it, through LLVM's NVPTX back end and the machine's ptxas
# (on PATH there), whose cubin the driver loads without that check.
execute_process(COMMAND ${GPUBENCH_PTXAS} --version OUTPUT_VARIABLE omp_clang_ptxas_version ERROR_QUIET)
set(omp_clang_jit)
set(omp_clang_jit_define)
if(omp_clang_ptxas_version MATCHES "release ([0-9]+)\\." AND CMAKE_MATCH_1 GREATER_EQUAL 13)
  set(omp_clang_jit -fopenmp-target-jit)
  set(omp_clang_jit_define -DGPUBENCH_OMP_TARGET_CLANG_JIT)
endif()
set(omp_clang_offload -fopenmp --offload-arch=${GPUBENCH_OMP_TARGET_CLANG_ARCH} --cuda-path=${omp_clang_cuda_path}
    --libomptarget-nvptx-bc-path=${omp_clang_llvm_lib} ${omp_clang_jit})
set(omp_clang_quirks -D_LIBCPP_COMPLEX -Wno-pass-failed)
set(omp_clang_flags -std=c++20 -O3 -fPIC ${omp_clang_offload} ${omp_clang_quirks} -DGPUBENCH_OMP_TARGET_CLANG ${omp_clang_jit_define}
    -DNDEBUG -I${CMAKE_SOURCE_DIR} -Wall -Wextra -Wshadow -Wno-sign-conversion)
# What a kernel spec's omp_target source is compiled with at run time (kernels/spec/omp_target.cpp):
# this Clang (and its version line) and its offload flags, '|' between them.
string(REPLACE ";" "|" omp_clang_spec_flags "-O3;${omp_clang_offload};${omp_clang_quirks};-fPIC;-shared;-std=c++17;-Wl,-rpath,${omp_clang_llvm_lib}")
execute_process(COMMAND ${GPUBENCH_CLANG_CXX} --version OUTPUT_VARIABLE omp_clang_version ERROR_QUIET)
string(REGEX REPLACE "\n.*" "" omp_clang_version "${omp_clang_version}")
set(omp_clang_object_flags ${omp_clang_flags} "-DGPUBENCH_SPEC_OFFLOAD_CXX=\"${GPUBENCH_CLANG_CXX}\""
    "-DGPUBENCH_SPEC_OFFLOAD_FLAGS=\"${omp_clang_spec_flags}\"" "-DGPUBENCH_SPEC_OFFLOAD_VERSION=\"${omp_clang_version}\"")
# Can this Clang offload here? A region that says where it ran, compiled and linked as the module is.
set(omp_clang_probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/omp_target_clang_probe)
file(MAKE_DIRECTORY ${omp_clang_probe_dir})
file(WRITE ${omp_clang_probe_dir}/probe.cpp "#include <omp.h>
int main() {
  int x = 0;
#pragma omp target map(tofrom: x)
  x = omp_is_initial_device() ? 1 : 2;
  return x > 2;
}
")
execute_process(COMMAND ${GPUBENCH_CLANG_CXX} ${omp_clang_flags} ${omp_clang_probe_dir}/probe.cpp -o ${omp_clang_probe_dir}/probe
                RESULT_VARIABLE omp_clang_probe_result OUTPUT_VARIABLE omp_clang_probe_output ERROR_VARIABLE omp_clang_probe_output)
if(NOT omp_clang_probe_result EQUAL 0)
  string(REGEX REPLACE "\n.*" "" omp_clang_probe_first "${omp_clang_probe_output}")
  gpubench_backend(NAME omp_target_clang NOT_BUILT "${GPUBENCH_CLANG_CXX} cannot offload to ${GPUBENCH_OMP_TARGET_CLANG_ARCH} here: ${omp_clang_probe_first} (${omp_clang_packages})")
  return()
endif()

# The sources: this backend's and each suite's omp_target.cpp (gpubench_suite calls the hook below
# in each suite's folder), compiled once every suite has named its own (a deferred call).
set_property(GLOBAL PROPERTY GPUBENCH_OMP_TARGET_CLANG_SOURCES ${CMAKE_SOURCE_DIR}/backends/omp_target/omp_target.cpp)
function(gpubench_omp_target_clang_suite)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/omp_target.cpp)
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_OMP_TARGET_CLANG_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/omp_target.cpp)
  endif()
endfunction()

set(omp_clang_module ${GPUBENCH_MODULE_DIR}/libgpubench_omp_target_clang.so)
function(gpubench_omp_target_clang_module)
  get_property(sources GLOBAL PROPERTY GPUBENCH_OMP_TARGET_CLANG_SOURCES)
  set(objects)
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR} ${source})
    string(REPLACE "/" "_" name ${relative})
    set(object ${CMAKE_BINARY_DIR}/omp_target_clang/${name}.o)
    add_custom_command(OUTPUT ${object}
      COMMAND ${GPUBENCH_CLANG_CXX} ${omp_clang_object_flags} -MD -MF ${object}.d -c ${source} -o ${object}
      DEPENDS ${source} DEPFILE ${object}.d
      COMMENT "Building ${relative} with ${GPUBENCH_CLANG_CXX} (omp_target_clang)" VERBATIM)
    list(APPEND objects ${object})
  endforeach()
  # Undefined symbols (gpubench's registries, errors) resolve against the program that loads it,
  # as the other modules' do; LLVM's runtime is found where Debian installs it (RUNPATH, so that
  # LD_LIBRARY_PATH, as the device bundle sets it, comes first).
  # Kernels that hold team memory, each in a library of its own, so in a device image of its own:
  # the runtime JIT-compiles each image as one program, and with GEMM's tensor kernels in the
  # module's LLVM 19 miscompiled EP's reduction (kernels/gemm/omp_target_tensor.h says how).
  # GEMM's tensor kernel (which GEMM's and LU's regions call), LU's device kernels (its panel
  # leaf, row swaps and triangular inverse) and FT's fast transform; the module finds them beside
  # itself ($ORIGIN).
  set(own_libraries)
  foreach(own IN ITEMS "kernels/gemm/omp_target_tensor.cpp|tensor" "kernels/lu/omp_target_device.cpp|lu_device"
                  "kernels/ft/omp_target_device.cpp|ft_device")
    string(REPLACE "|" ";" own ${own})
    list(GET own 0 relative)
    list(GET own 1 name)
    string(REPLACE "/" "_" object_name ${relative})
    set(object ${CMAKE_BINARY_DIR}/omp_target_clang/${object_name}.o)
    set(library ${GPUBENCH_MODULE_DIR}/libgpubench_omp_${name}.so)
    add_custom_command(OUTPUT ${object}
      COMMAND ${GPUBENCH_CLANG_CXX} ${omp_clang_object_flags} -MD -MF ${object}.d -c ${CMAKE_SOURCE_DIR}/${relative} -o ${object}
      DEPENDS ${CMAKE_SOURCE_DIR}/${relative} DEPFILE ${object}.d
      COMMENT "Building ${relative} with ${GPUBENCH_CLANG_CXX} (an omp_target_clang image of its own)" VERBATIM)
    add_custom_command(OUTPUT ${library}
      COMMAND ${GPUBENCH_CLANG_CXX} -shared ${omp_clang_offload} ${object} -o ${library}
              -Wl,-soname,libgpubench_omp_${name}.so -Wl,--enable-new-dtags -Wl,-rpath,${omp_clang_llvm_lib}
      DEPENDS ${object}
      COMMENT "Linking omp_target_clang's ${name} image" VERBATIM)
    list(APPEND own_libraries ${library})
  endforeach()
  add_custom_command(OUTPUT ${omp_clang_module}
    COMMAND ${GPUBENCH_CLANG_CXX} -shared ${omp_clang_offload} ${objects} -o ${omp_clang_module}
            ${own_libraries} -Wl,--enable-new-dtags "-Wl,-rpath,$ORIGIN:${omp_clang_llvm_lib}"
    DEPENDS ${objects} ${own_libraries}
    COMMENT "Linking the omp_target_clang module" VERBATIM)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL gpubench_omp_target_clang_module)
add_custom_target(gpubench_omp_target_clang ALL DEPENDS ${omp_clang_module})
set_target_properties(gpubench_omp_target_clang PROPERTIES GPUBENCH_MODULE_FILE "${omp_clang_module};${GPUBENCH_MODULE_DIR}/libgpubench_omp_tensor.so;${GPUBENCH_MODULE_DIR}/libgpubench_omp_lu_device.so;${GPUBENCH_MODULE_DIR}/libgpubench_omp_ft_device.so")
gpubench_backend(NAME omp_target_clang MODULE gpubench_omp_target_clang ORDER 15)
