# SPDX-License-Identifier: MIT
# Programs for the KohakuTPU RV32 control processor (CPU_RV64 = 0), built with the same
# bare-metal RISC-V compiler as the RV64 programs (gcc-riscv64-unknown-elf; its rv32i/ilp32
# multilib, no C library needed): every examples/rv32/*.c becomes build/rv32/NAME.elf, linked
# with the start-up in rv32/, and its two boot images — NAME.text for the instruction window and
# NAME.data for the scratchpad — which the host writes by CU_DATA before the kick. Tests that
# need a missing program skip and say so.
find_program(NPUKIT_RV64_CC riscv64-unknown-elf-gcc) # also rv64.cmake's; this file is read first
find_program(NPUKIT_RV32_OBJCOPY riscv64-unknown-elf-objcopy)
set(NPUKIT_RV32_OUT ${CMAKE_BINARY_DIR}/rv32)
set(NPUKIT_RV32_FLAGS -march=rv32i -mabi=ilp32 -O2 ${NPUKIT_WARNINGS} -std=gnu11 -ffreestanding
    -nostdlib -nostartfiles)

if(NPUKIT_RV64_CC AND NPUKIT_RV32_OBJCOPY)
  message(STATUS "npukit: building RV32 programs with ${NPUKIT_RV64_CC} (-march=rv32i)")
  file(GLOB npukit_rv32_programs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/examples/rv32/*.c)
  file(GLOB npukit_rv32_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/rv32/*.h
    ${CMAKE_CURRENT_SOURCE_DIR}/src/kt/hw/kt_rv32.h
    ${CMAKE_CURRENT_SOURCE_DIR}/include/npukit/kt_mover_hw.h)
  set(npukit_rv32_outputs "")
  foreach(src ${npukit_rv32_programs})
    get_filename_component(name ${src} NAME_WE)
    set(out ${NPUKIT_RV32_OUT}/${name})
    add_custom_command(OUTPUT ${out}.elf ${out}.text ${out}.data
      COMMAND ${CMAKE_COMMAND} -E make_directory ${NPUKIT_RV32_OUT}
      COMMAND ${NPUKIT_RV64_CC} ${NPUKIT_RV32_FLAGS} -T ${CMAKE_CURRENT_SOURCE_DIR}/rv32/link.ld
              -I ${CMAKE_CURRENT_SOURCE_DIR}/rv32 -I ${CMAKE_CURRENT_SOURCE_DIR}/include
              -I ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/rv32/crt0.S ${src}
              -lgcc -o ${out}.elf
      COMMAND ${NPUKIT_RV32_OBJCOPY} -O binary -j .text ${out}.elf ${out}.text
      COMMAND ${NPUKIT_RV32_OBJCOPY} -O binary -j .data ${out}.elf ${out}.data
      DEPENDS ${src} ${CMAKE_CURRENT_SOURCE_DIR}/rv32/crt0.S ${CMAKE_CURRENT_SOURCE_DIR}/rv32/link.ld
              ${npukit_rv32_headers}
      COMMENT "RV32 program ${name}.elf" VERBATIM)
    list(APPEND npukit_rv32_outputs ${out}.elf)
  endforeach()
  if(npukit_rv32_outputs)
    add_custom_target(rv32_programs ALL DEPENDS ${npukit_rv32_outputs})
  endif()
else()
  message(STATUS "npukit: no riscv64-unknown-elf-gcc: RV32 programs not built "
                 "(apt-get install -y gcc-riscv64-unknown-elf)")
endif()
