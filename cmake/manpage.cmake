# SPDX-License-Identifier: MIT
# npukit.1 from the CLI's own help and option rows (scripts/manpage.sh), gzip'd as Debian installs
# manuals; `man -l build/npukit.1.gz` reads it before installing. A cross build runs the CLI
# through the emulator (NPUKIT_CLI_RUN); without one the page is not built.
find_program(NPUKIT_GZIP gzip)
if(NPUKIT_GZIP AND (NOT CMAKE_CROSSCOMPILING OR CMAKE_CROSSCOMPILING_EMULATOR))
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/npukit.1.gz
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/manpage.sh ${NPUKIT_CLI_RUN} > npukit.1
    COMMAND ${NPUKIT_GZIP} -9nf npukit.1
    DEPENDS npukit ${CMAKE_CURRENT_SOURCE_DIR}/scripts/manpage.sh
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR} VERBATIM)
  add_custom_target(npukit_man ALL DEPENDS ${CMAKE_BINARY_DIR}/npukit.1.gz)
  install(FILES ${CMAKE_BINARY_DIR}/npukit.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT cli)
endif()
