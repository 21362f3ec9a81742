# The OpenMP backend: the host's cores.
option(GPUBENCH_OPENMP "Build the OpenMP (CPU) backend" ON)

# The host's BLAS and LAPACKE (OpenBLAS; LAPACKE over Debian's alternatives), which the host's
# reference code calls with or without this backend: their headers at build time, the libraries
# loaded when a point first calls them (host_blas.hpp), never linked: OpenBLAS starts its threads
# as it is loaded. The suites read GPUBENCH_HOST_CBLAS, GPUBENCH_CBLAS_INCLUDE, GPUBENCH_HOST_LAPACKE.
set(BLA_VENDOR OpenBLAS)
find_package(BLAS QUIET)
find_path(GPUBENCH_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas openblas-pthread)
find_path(GPUBENCH_LAPACKE_INCLUDE lapacke.h)
find_library(GPUBENCH_LAPACKE_LIBRARY lapacke)
set(GPUBENCH_HOST_CBLAS OFF)
set(GPUBENCH_HOST_LAPACKE OFF)
set(host_blas_definitions "")
if(BLAS_FOUND AND GPUBENCH_CBLAS_INCLUDE)
  set(GPUBENCH_HOST_CBLAS ON)
  list(APPEND host_blas_definitions GPUBENCH_HOST_CBLAS)
endif()
if(GPUBENCH_LAPACKE_INCLUDE AND GPUBENCH_LAPACKE_LIBRARY)
  set(GPUBENCH_HOST_LAPACKE ON)
  list(APPEND host_blas_definitions GPUBENCH_HOST_LAPACKE)
endif()
target_sources(gpubench_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/host_blas.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/host_blas.cpp PROPERTIES COMPILE_DEFINITIONS "${host_blas_definitions}")
if(GPUBENCH_HOST_CBLAS)  # (lapacke.h is in the compiler's own /usr/include)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/host_blas.cpp PROPERTIES INCLUDE_DIRECTORIES "${GPUBENCH_CBLAS_INCLUDE}")
endif()

if(NOT GPUBENCH_OPENMP)
  gpubench_backend(NAME openmp NOT_BUILT "configured with -DGPUBENCH_OPENMP=OFF")
  return()
endif()
if(NOT OpenMP_CXX_FOUND)
  message(FATAL_ERROR "GPUBENCH_OPENMP is ON but no OpenMP was found (install g++, or -DGPUBENCH_OPENMP=OFF)")
endif()
target_sources(gpubench_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/openmp.cpp ${CMAKE_CURRENT_LIST_DIR}/ceilings.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/huge_pages.cpp)
gpubench_backend(NAME openmp MPI_TEST_RANKS 1 2 3 4)
