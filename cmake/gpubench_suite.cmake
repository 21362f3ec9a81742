# How a suite joins the build: kernels/<suite>/CMakeLists.txt calls gpubench_suite() and
# tests/kernels/<suite>/CMakeLists.txt calls gpubench_suite_tests(); the top CMakeLists.txt and
# tests/CMakeLists.txt pull those fragments in by a sorted glob, so that adding a suite edits no
# file outside its two folders. Paths are relative to the calling fragment's folder.
#
# A suite's sources for a backend are keyed by the backend's name in upper case, and added only
# when that backend is built (cmake/gpubench_backend.cmake); a built backend the suite names no
# sources for gets the suite's <backend>.cpp where there is one, so that adding an API to a suite
# is one file in its folder.

# gpubench_suite(NAME cg SOURCES ... OPENMP ... OPENCL ... CUDA ... <the backends' own lists>)
# SOURCES: the suite's code for every backend. The backends' own lists: OPENCL_KERNELS and
# OPENCL_INCLUDES (backends/opencl/backend.cmake), CUDA_LIBRARIES, NVRTC_KERNELS and NVRTC_INCLUDES
# (backends/cuda/backend.cmake).
function(gpubench_suite)
  get_property(keywords GLOBAL PROPERTY GPUBENCH_SUITE_KEYWORDS)
  cmake_parse_arguments(PARSE_ARGV 0 SUITE "" "NAME" "SOURCES;${keywords}")
  if(NOT SUITE_NAME OR SUITE_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: gpubench_suite() takes NAME and the lists "
                        "SOURCES ${keywords} (unexpected: '${SUITE_UNPARSED_ARGUMENTS}')")
  endif()
  list(TRANSFORM SUITE_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(gpubench_objects PRIVATE ${SUITE_SOURCES})
  get_property(backends GLOBAL PROPERTY GPUBENCH_BACKENDS)
  foreach(backend IN LISTS backends)
    string(TOUPPER ${backend} key)
    set(SUITE_FILES ${SUITE_${key}})
    if(NOT DEFINED SUITE_${key} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${backend}.cpp)
      set(SUITE_FILES ${backend}.cpp)
    endif()
    list(TRANSFORM SUITE_FILES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
    if(COMMAND gpubench_${backend}_suite)
      cmake_language(CALL gpubench_${backend}_suite)
    else()
      get_property(objects GLOBAL PROPERTY GPUBENCH_OBJECTS_OF_${backend})
      target_sources(${objects} PRIVATE ${SUITE_FILES})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY GPUBENCH_SUITES ${SUITE_NAME})
endfunction()

# gpubench_suite_tests(SOURCES ... OPENMP ... OPENCL ... CUDA ... VIENNACL ...): test files of
# the suite, those for a backend (keyed by its name in upper case) only when it is built, in that
# backend's test program (gpubench_test_program).
function(gpubench_suite_tests)
  get_property(keywords GLOBAL PROPERTY GPUBENCH_SUITE_KEYWORDS)
  cmake_parse_arguments(PARSE_ARGV 0 TESTS "" "" "SOURCES;${keywords}")
  if(TESTS_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: gpubench_suite_tests() takes the lists "
                        "SOURCES and the backends' names in upper case (unexpected: '${TESTS_UNPARSED_ARGUMENTS}')")
  endif()
  list(TRANSFORM TESTS_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(gpubench_tests PRIVATE ${TESTS_SOURCES})
  get_property(backends GLOBAL PROPERTY GPUBENCH_BACKENDS)
  foreach(backend IN LISTS backends)
    string(TOUPPER ${backend} key)
    list(TRANSFORM TESTS_${key} PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
    gpubench_test_program(${backend} program)
    target_sources(${program} PRIVATE ${TESTS_${key}})
  endforeach()
endfunction()

# The test program a backend's own test files join: a module's own (gpubench_<name>_tests, which
# links the module's objects), else gpubench_tests.
# A module whose code is built outside CMake's compilers (omp_target_clang) has no objects to link:
# its tests reach it through the registry, in gpubench_tests.
function(gpubench_test_program backend out)
  get_property(modules GLOBAL PROPERTY GPUBENCH_MODULE_BACKENDS)
  get_property(objects GLOBAL PROPERTY GPUBENCH_OBJECTS_OF_${backend})
  if(backend IN_LIST modules AND NOT objects STREQUAL "gpubench_objects")
    set(${out} gpubench_${backend}_tests PARENT_SCOPE)
  else()
    set(${out} gpubench_tests PARENT_SCOPE)
  endif()
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
