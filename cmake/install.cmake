# SPDX-License-Identifier: MIT
# `cmake --install` (or `make install`; PREFIX and DESTDIR honoured): the static and shared
# library, the public headers under include/npukit, the CLI, the LD_PRELOAD shim, the KohakuTPU
# presets under share/npukit (found at run time relative to the installed programs), a CMake
# package (find_package(npukit) -> npukit::npukit) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS npukit_lib npukit_shared EXPORT npukitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/npukit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(FILES ${NPUKIT_GENERATED_INCLUDE}/npukit/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit)
install(TARGETS npukit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# (the shim installs itself in rksim_shim.cmake: lib/npukit/librksim_shim.so)
install(DIRECTORY data/kt DESTINATION ${CMAKE_INSTALL_DATADIR}/npukit)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

set(NPUKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/npukit)
install(EXPORT npukitTargets NAMESPACE npukit:: DESTINATION ${NPUKIT_CMAKE_DIR})
configure_package_config_file(cmake/in/npukitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/npukitConfig.cmake INSTALL_DESTINATION ${NPUKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/npukitConfig.cmake ${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
        DESTINATION ${NPUKIT_CMAKE_DIR})

# pkg-config: static linking needs the libraries libnpukit.a uses (Libs.private).
set(NPUKIT_PC_LIBS_PRIVATE "")
foreach(lib ${NPUKIT_BLAS_LIBS} ${NPUKIT_ELF_LIB} ${NPUKIT_CJSON_LIB})
  get_filename_component(name ${lib} NAME_WE)
  string(REGEX REPLACE "^lib" "-l" flag ${name})
  string(APPEND NPUKIT_PC_LIBS_PRIVATE "${flag} ")
endforeach()
string(APPEND NPUKIT_PC_LIBS_PRIVATE "-lpthread -lm ${CMAKE_DL_LIBS}")
string(REPLACE ";" " " NPUKIT_PC_LIBS_PRIVATE "${NPUKIT_PC_LIBS_PRIVATE}")
string(REGEX REPLACE " dl$" " -ldl" NPUKIT_PC_LIBS_PRIVATE "${NPUKIT_PC_LIBS_PRIVATE}")
# The prefix relative to the .pc file, so an installed tree can move (or be staged in DESTDIR).
file(RELATIVE_PATH NPUKIT_PC_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
set(NPUKIT_PC_PREFIX "\${pcfiledir}/${NPUKIT_PC_PREFIX}")
configure_file(cmake/in/npukit.pc.in ${CMAKE_BINARY_DIR}/npukit.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/npukit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
