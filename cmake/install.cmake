# SPDX-License-Identifier: MIT
# `cmake --install` (or `make install`; PREFIX and DESTDIR honoured): the static and shared
# library, the public headers under include/npukit, the CLI, the LD_PRELOAD shim, the KohakuTPU
# presets under share/npukit (found at run time relative to the installed programs), a CMake
# package (find_package(npukit) -> npukit::npukit) and a pkg-config file.
include(CMakePackageConfigHelpers)

# Every rule names its component, which is one Debian package (cmake/packaging.cmake):
#   lib -> libnpukit0, dev -> libnpukit-dev, cli -> npukit, rknn -> npukit-rknn, sim -> npukit-sim.
install(TARGETS npukit_lib npukit_shared EXPORT npukitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib)
# The public headers: the API a program calls (rk.h, kt.h, ktsim.h, rksim.h, kt_remote.h,
# kt_serve.h, rk_reference.h, fp16.h), the two kernel uAPI headers a plain rknpu/rocket program
# builds against, and what those include. The others in include/npukit are the library's own:
# not installed, and their functions are not exported (tests/exports/check_exports.sh).
set(NPUKIT_PUBLIC_HEADERS export.h status.h fp16.h rk.h rk_types.h rk_sdp_hw.h rk_reference.h
    rknpu_uapi.h rocket_uapi.h rksim.h kt.h kt_flit.h kt_regs.h kt_words.h kt_transport.h
    ktsim.h kt_remote.h kt_serve.h rk_plan.h rk_synth.h rk_decode.h rk_soc.h rk_outstage.h
    rk_regcmd.h rk_regs.h rk_regs.def kt_open.h kt_board.h kt_mover.h kt_mover_hw.h kt_hostprog.h
    kt_rv64_load.h)
list(TRANSFORM NPUKIT_PUBLIC_HEADERS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/include/npukit/)
install(FILES ${NPUKIT_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit
        COMPONENT dev)
install(FILES ${NPUKIT_GENERATED_INCLUDE}/npukit/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit COMPONENT dev)
install(TARGETS npukit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# (the shim installs itself in rksim_shim.cmake: lib/npukit/librksim_shim.so)
# The presets are read by the library (ktsim_preset_load), so they travel with it.
install(DIRECTORY data/kt DESTINATION ${CMAKE_INSTALL_DATADIR}/npukit COMPONENT lib)
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli
        FILES_MATCHING PATTERN "*.md")

set(NPUKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/npukit)
install(EXPORT npukitTargets NAMESPACE npukit:: DESTINATION ${NPUKIT_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/in/npukitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/npukitConfig.cmake INSTALL_DESTINATION ${NPUKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/npukitConfig.cmake ${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
        DESTINATION ${NPUKIT_CMAKE_DIR} COMPONENT dev)

# pkg-config: static linking needs the libraries libnpukit.a uses (Libs.private).
set(NPUKIT_PC_LIBS_PRIVATE "")
foreach(lib ${NPUKIT_BLAS_LIBS} ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB})
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
install(FILES ${CMAKE_BINARY_DIR}/npukit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# libnpukit.so exports exactly the functions and objects the installed headers declare with
# NPUKIT_API, and each of those is defined in the library.
add_test(NAME test_exports COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/exports/check_exports.sh
         ${CMAKE_NM} $<TARGET_FILE:npukit_shared> ${NPUKIT_GENERATED_INCLUDE}/npukit/version.h
         ${NPUKIT_PUBLIC_HEADERS})
