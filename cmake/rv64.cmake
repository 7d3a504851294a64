# SPDX-License-Identifier: MIT
# Programs for the KohakuTPU RV64 control complex, built when the bare-metal RISC-V compiler
# and picolibc are installed (gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf): every
# examples/rv64/*.c and tests/rv64/*.c becomes build/rv64/NAME.elf, linked with the runtime in
# rv64/. The QEMU cross-check kernels are also built as a static Linux program
# (gcc-riscv64-linux-gnu) for qemu-riscv64. Tests that need a missing program skip and say so.
find_program(NPUKIT_RV64_CC riscv64-unknown-elf-gcc)
find_program(NPUKIT_RV64_LINUX_CC riscv64-linux-gnu-gcc)
set(NPUKIT_RV64_OUT ${CMAKE_BINARY_DIR}/rv64)
# rv64im with the CSR instructions (ISA spec 2.2 folds Zicsr and Zifencei into I), which is
# also the name of picolibc's matching multilib.
set(NPUKIT_RV64_FLAGS -march=rv64im -misa-spec=2.2 -mabi=lp64 -mcmodel=medany -O2
    ${NPUKIT_WARNINGS} -std=gnu11)
set(NPUKIT_RV64_RUNTIME ${CMAKE_CURRENT_SOURCE_DIR}/rv64/crt0.S ${CMAKE_CURRENT_SOURCE_DIR}/rv64/rt.c)

set(npukit_rv64_have_picolibc FALSE)
if(NPUKIT_RV64_CC)
  execute_process(COMMAND ${NPUKIT_RV64_CC} --specs=picolibc.specs ${NPUKIT_RV64_FLAGS} -print-multi-directory
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(npukit_rv64_have_picolibc TRUE)
  endif()
endif()

set(npukit_rv64_outputs "")
if(npukit_rv64_have_picolibc)
  message(STATUS "npukit: building RV64 programs with ${NPUKIT_RV64_CC} and picolibc")
  file(GLOB npukit_rv64_programs CONFIGURE_DEPENDS
    ${CMAKE_CURRENT_SOURCE_DIR}/examples/rv64/*.c ${CMAKE_CURRENT_SOURCE_DIR}/tests/rv64/*.c)
  file(GLOB npukit_rv64_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/rv64/*.h
    ${CMAKE_CURRENT_SOURCE_DIR}/src/kt/hw/kt_rv64.h
    ${CMAKE_CURRENT_SOURCE_DIR}/src/kt/kt_rv64_request.h)
  foreach(src ${npukit_rv64_programs})
    get_filename_component(name ${src} NAME_WE)
    set(out ${NPUKIT_RV64_OUT}/${name}.elf)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${NPUKIT_RV64_OUT}
      COMMAND ${NPUKIT_RV64_CC} --specs=picolibc.specs ${NPUKIT_RV64_FLAGS} -nostartfiles
              -T ${CMAKE_CURRENT_SOURCE_DIR}/rv64/link.ld -I ${CMAKE_CURRENT_SOURCE_DIR}/rv64
              -I ${CMAKE_CURRENT_SOURCE_DIR}/include -I ${CMAKE_CURRENT_SOURCE_DIR}/src ${NPUKIT_RV64_RUNTIME} ${src} -o ${out}
      DEPENDS ${src} ${NPUKIT_RV64_RUNTIME} ${npukit_rv64_headers} ${CMAKE_CURRENT_SOURCE_DIR}/rv64/link.ld
      COMMENT "RV64 program ${name}.elf" VERBATIM)
    list(APPEND npukit_rv64_outputs ${out})
  endforeach()
else()
  message(STATUS "npukit: no riscv64-unknown-elf-gcc with picolibc: RV64 programs not built "
                 "(apt-get install -y gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf)")
endif()

if(NPUKIT_RV64_LINUX_CC)
  set(out ${NPUKIT_RV64_OUT}/kernels.linux)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${NPUKIT_RV64_OUT}
    COMMAND ${NPUKIT_RV64_LINUX_CC} -static -O2 ${NPUKIT_WARNINGS}
            ${CMAKE_CURRENT_SOURCE_DIR}/tests/rv64/kernels.c -o ${out}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/rv64/kernels.c
    COMMENT "RV64 Linux program kernels.linux (for qemu-riscv64)" VERBATIM)
  list(APPEND npukit_rv64_outputs ${out})
endif()

if(npukit_rv64_outputs)
  add_custom_target(rv64_programs ALL DEPENDS ${npukit_rv64_outputs})
endif()
