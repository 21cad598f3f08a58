# The GPU check programs (scripts/gpu-check), defined once for both kinds of CUDA build:
#   gpu_kernels_tests     GoogleTest, label gpu: each CUDA op against its CPU reference
#   gpu_kernels_bench     fused ops vs unfused LibTorch ops (ms and speed-ups)
#   gpu_train_step_bench  bf16 vanilla GPT training steps: tokens/s and MFU
#   gpu_check_run         a ladder's run as planned (micro-batch, memory estimate), shortened
# Included by tests/kernels/CMakeLists.txt (full build) and by trainers/cuda/CMakeLists.txt in a
# headless build (a GPU node has no Qt, so tests/ is not entered there). Needs
# deepladder_trainers_cuda; GTest is optional (without it only the two benches are built).
if(TARGET gpu_kernels_bench)
  return()
endif()
set(_gpu_dir ${PROJECT_SOURCE_DIR}/tests/kernels)
if(NOT TARGET gpu_check_run)
  add_executable(gpu_check_run ${_gpu_dir}/gpu_check_run.cpp)
  target_link_libraries(gpu_check_run PRIVATE deepladder_core deepladder_warnings)
  set_target_properties(gpu_check_run PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
endif()
if(NOT TARGET GTest::gtest)
  find_package(GTest QUIET)
endif()
if(TARGET GTest::gtest)
  add_executable(gpu_kernels_tests ${_gpu_dir}/gpu_kernels_test.cpp)
  target_link_libraries(gpu_kernels_tests PRIVATE deepladder_trainers_cuda GTest::gtest
                        GTest::gtest_main deepladder_warnings)
  if(COMMAND add_test)
    add_test(NAME gpu_kernels_tests COMMAND gpu_kernels_tests)
    set_tests_properties(gpu_kernels_tests PROPERTIES LABELS gpu TIMEOUT 300)
  endif()
else()
  message(STATUS "gpu checks: GTest not found, gpu_kernels_tests not built")
endif()
add_executable(gpu_kernels_bench ${_gpu_dir}/gpu_kernels_bench.cpp)
target_link_libraries(gpu_kernels_bench PRIVATE deepladder_trainers_cuda deepladder_warnings)
add_executable(gpu_train_step_bench ${_gpu_dir}/gpu_train_step_bench.cpp)
target_link_libraries(gpu_train_step_bench PRIVATE deepladder_trainers deepladder_core deepladder_warnings)
set_target_properties(gpu_kernels_bench gpu_train_step_bench PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
if(TARGET gpu_kernels_tests)
  set_target_properties(gpu_kernels_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
endif()
