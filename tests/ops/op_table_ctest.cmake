# Registers the op table's ctest tests at ctest time (as gtest_discover_tests' PRE_TEST mode does):
# one ctest test per case, OpTable/<op>_<case>, whose process runs the GoogleTest tests of that case
# on every backend (OpTable/Op.Matches/<op>_<case>_<backend>), plus one per other test.
#
# Why not one ctest test per case and backend: each ctest test is a process, and on lavapipe a
# process that opens a Vulkan device spends ~0.45 s of CPU loading the driver (LLVM) and the
# validation layer before it runs anything. Two Vulkan processes per case would take the table
# past two minutes on 2 cores; one per case keeps it near one. A failure still names the op, the
# case and the backend (the GoogleTest name and message). VOLVOX_OP_TABLE_CTEST_PER_BACKEND=ON
# registers one ctest test per case and backend instead.
#
# Called from the test include file that tests/ops/CMakeLists.txt generates:
#   op_table_add_tests(<test_ops executable> <cache file> <labels> <timeout>)

function(op_table_add_tests exe cache labels timeout)
  if(NOT EXISTS "${exe}")
    add_test(OpTable_NOT_BUILT "${exe}")
    return()
  endif()
  if(NOT EXISTS "${cache}" OR "${exe}" IS_NEWER_THAN "${cache}")
    execute_process(COMMAND "${exe}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${exe} --gtest_list_tests failed (${rc}):\n${listing}")
    endif()
    string(REPLACE "\n" ";" lines "${listing}")
    set(suite "")
    set(case_ids "")
    set(singles "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^([A-Za-z0-9_/]+)\\.$")
        set(suite "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^  ([A-Za-z0-9_/]+)")
        set(test "${CMAKE_MATCH_1}")
        if(suite STREQUAL "OpTable/Op" AND test MATCHES "^Matches/(.+)_(cpu_reference|cpu|vulkan_f32|vulkan_f16)$")
          set(id "${CMAKE_MATCH_1}")
          if(NOT DEFINED filter_${id})
            list(APPEND case_ids "${id}")
            set(filter_${id} "OpTable/Op.${test}")
          else()
            set(filter_${id} "${filter_${id}}:OpTable/Op.${test}")
          endif()
        else()
          list(APPEND singles "${suite}.${test}")
        endif()
      endif()
    endforeach()
    set(script "")
    foreach(id IN LISTS case_ids)
      string(APPEND script "add_test([=[OpTable/${id}]=] [=[${exe}]=] [=[--gtest_filter=${filter_${id}}]=])\n"
                           "set_tests_properties([=[OpTable/${id}]=] PROPERTIES LABELS ${labels} TIMEOUT ${timeout})\n")
    endforeach()
    foreach(name IN LISTS singles)
      string(APPEND script "add_test([=[${name}]=] [=[${exe}]=] [=[--gtest_filter=${name}]=])\n"
                           "set_tests_properties([=[${name}]=] PROPERTIES LABELS ${labels} TIMEOUT ${timeout})\n")
    endforeach()
    file(WRITE "${cache}" "${script}")
  endif()
  include("${cache}")
endfunction()
