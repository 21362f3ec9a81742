# How a backend joins the build: its folder's backend.cmake (backends/<name>/backend.cmake), which
# the top CMakeLists.txt includes, every one in sorted order, declares it with gpubench_backend():
# built or not (and why not), where its sources and its suites' sources go, the lists a suite may
# give it, its tests. Nothing else in the build names an API: a suite's sources for a backend are
# keyed by the backend's name (cmake/gpubench_suite.cmake).

# gpubench_backend(NAME name [ALSO names...] [NOT_BUILT why]
#                  [OBJECTS target] [MODULE target ORDER n] [LISTS keywords...]
#                  [TESTS files...] [MPI_TEST_RANKS n...])
# NAME: the backend's name on the command line; ALSO: other names it registers (viennacl_host).
# NOT_BUILT: it is not in this build, and why (`gpubench --list-devices` says it); nothing else
#   is then read. A suite may still name its sources: they are left out.
# OBJECTS: the object library its suites' sources join (gpubench_objects unless named).
# MODULE, ORDER: built as a module gpubench loads when the backend is asked for (lib/gpubench),
#   listed at ORDER among the backends; OBJECTS are the module's objects (its own test program,
#   gpubench_<name>_tests, links them).
# LISTS: keywords besides NAME (upper case) that gpubench_suite() takes for this backend
#   (OPENCL_KERNELS): the backend's function gpubench_<name>_suite(), if it defines one, reads
#   them as SUITE_<KEYWORD> (and its sources as SUITE_FILES) in the calling suite's folder.
# TESTS: test sources of the backend (relative to the source root), built into its test program
#   (tests/CMakeLists.txt: gpubench_tests, or a module's own).
# MPI_TEST_RANKS: the rank counts the MPI tests run CG with on this backend (tests/CMakeLists.txt).
function(gpubench_backend)
  cmake_parse_arguments(PARSE_ARGV 0 B "" "NAME;NOT_BUILT;OBJECTS;MODULE;ORDER" "ALSO;LISTS;TESTS;MPI_TEST_RANKS")
  if(NOT B_NAME OR B_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: gpubench_backend() takes NAME, NOT_BUILT, OBJECTS, MODULE, "
                        "ORDER and the lists ALSO LISTS TESTS MPI_TEST_RANKS (unexpected: '${B_UNPARSED_ARGUMENTS}')")
  endif()
  string(TOUPPER "${B_NAME}" key)
  set_property(GLOBAL APPEND PROPERTY GPUBENCH_SUITE_KEYWORDS ${key} ${B_LISTS})
  if(DEFINED B_NOT_BUILT)
    foreach(name IN ITEMS ${B_NAME} ${B_ALSO})
      set_property(GLOBAL APPEND PROPERTY GPUBENCH_NOT_BUILT "${name}=${B_NOT_BUILT}")
    endforeach()
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY GPUBENCH_BACKENDS ${B_NAME})
  if(NOT B_OBJECTS)
    set(B_OBJECTS gpubench_objects)
  endif()
  set_property(GLOBAL PROPERTY GPUBENCH_OBJECTS_OF_${B_NAME} ${B_OBJECTS})
  if(B_MODULE)
    if(NOT DEFINED B_ORDER)
      message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: a MODULE backend names its listing ORDER")
    endif()
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_MODULES "${B_NAME}=${B_ORDER}")
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_MODULE_TARGETS ${B_MODULE})
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_MODULE_BACKENDS ${B_NAME})
  endif()
  list(TRANSFORM B_TESTS PREPEND ${CMAKE_SOURCE_DIR}/)
  set_property(GLOBAL PROPERTY GPUBENCH_TESTS_OF_${B_NAME} ${B_TESTS})
  if(B_MPI_TEST_RANKS)
    set_property(GLOBAL APPEND PROPERTY GPUBENCH_MPI_TEST_BACKENDS ${B_NAME})
    set_property(GLOBAL PROPERTY GPUBENCH_MPI_TEST_RANKS_${B_NAME} ${B_MPI_TEST_RANKS})
  endif()
endfunction()

# gpubench_embed_kernels(files... [INCLUDES headers...]): kernels compiled at run time (OpenCL's
# .cl, NVRTC's .cu), absolute paths, embedded into the binary (cmake/embed_kernels.cmake) and looked
# up by kernel_source(): a suite's by its path under kernels/ ("cg/opencl.cl"), another's by its
# path under the source root ("backends/opencl/ceilings.cl"). INCLUDES: the headers they #include,
# so that a change to one re-embeds them.
function(gpubench_embed_kernels)
  cmake_parse_arguments(PARSE_ARGV 0 E "" "" "INCLUDES")
  foreach(kernel IN LISTS E_UNPARSED_ARGUMENTS)
    file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR}/kernels ${kernel})
    if(relative MATCHES "^\\.\\./")
      file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR} ${kernel})
      set_property(GLOBAL APPEND PROPERTY GPUBENCH_EMBEDDED_SOURCE_KERNELS ${relative})
    else()
      set_property(GLOBAL APPEND PROPERTY GPUBENCH_EMBEDDED_KERNELS ${relative})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY GPUBENCH_EMBEDDED_INCLUDES ${E_INCLUDES})
endfunction()
